/**
 * Which IAM roles the orchestrator may assume, in one place: the default patterns serverless.yml packages
 * (`ASSUMABLE_ROLE_ARNS`, `PREFLIGHT_ASSUMABLE_ROLES`), and the matcher the preflight (and `package`) use
 * to tell, without calling STS, that the packaged policy would refuse a role.
 */

/** The setting that widens the roles the ExternalSecret preflight may assume. */
export const PREFLIGHT_ASSUMABLE_ROLES = 'PREFLIGHT_ASSUMABLE_ROLES';

/** Name prefix of the roles the default policy lets the functions assume: `gitops-sync-<stage>-access-`. */
export function assumableRolePrefix(stage: string): string {
  return `gitops-sync-${stage}-access-`;
}

/** The default pattern (serverless.yml `custom.defaults.assumableRoleArns`), for one account and stage. */
export function defaultAssumableRolePattern(at: {
  partition?: string;
  account: string;
  stage: string;
}): string {
  return `arn:${at.partition ?? 'aws'}:iam::${at.account}:role/${assumableRolePrefix(at.stage)}*`;
}

/** A comma-separated setting as a list of ARN patterns (blank entries dropped). */
export function parseRolePatterns(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** IAM's `Resource` wildcard match: `*` any run of characters, `?` one character, case-sensitive. */
export function iamPatternMatches(pattern: string, arn: string): boolean {
  const source = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(arn);
}

/** The first role of `roles` no pattern allows, or undefined when every one is allowed. */
export function firstOutside(roles: readonly string[], patterns: readonly string[]): string | undefined {
  return roles.find((role) => !patterns.some((pattern) => iamPatternMatches(pattern, role)));
}
