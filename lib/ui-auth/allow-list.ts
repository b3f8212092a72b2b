import { ConfigError } from '../errors.js';

/** One `OIDC_ALLOWED` entry: an exact email, an `@domain` suffix or a `group:<name>` from `groups`. */
export type AllowRule =
  | { readonly kind: 'email'; readonly email: string }
  | { readonly kind: 'domain'; readonly domain: string }
  | { readonly kind: 'group'; readonly group: string };

/** What of the ID token's claims the allow list looks at. */
export interface PersonClaims {
  readonly email?: unknown;
  readonly email_verified?: unknown;
  readonly groups?: unknown;
}

const EMAIL = /^[^@\s,]+@[^@\s,]+$/;
const DOMAIN = /^@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

/** Comma-separated; entries are named by position in an error, never echoed. */
export function parseAllowList(raw: string): readonly AllowRule[] {
  const entries = raw.split(',').map((e) => e.trim());
  return entries.map((entry, index): AllowRule => {
    const group = /^group:(.+)$/.exec(entry)?.[1]?.trim();
    if (group !== undefined && group !== '') return { kind: 'group', group };
    const lower = entry.toLowerCase();
    if (DOMAIN.test(lower)) return { kind: 'domain', domain: lower };
    if (EMAIL.test(lower)) return { kind: 'email', email: lower };
    throw new ConfigError(
      'OIDC_ALLOWED',
      `entry ${index + 1} is not an email, an @domain or group:<name> (comma-separated)`,
    );
  });
}

/**
 * Emails count only when the provider does not say they are unverified (`email_verified: false`);
 * groups come from the `groups` claim as the provider sends it (a list, or one name).
 */
export function isAllowed(rules: readonly AllowRule[], claims: PersonClaims): boolean {
  const unverified = claims.email_verified === false || claims.email_verified === 'false';
  const email = typeof claims.email === 'string' && !unverified ? claims.email.toLowerCase() : undefined;
  const groups = groupsOf(claims.groups);
  return rules.some((rule) => {
    if (rule.kind === 'email') return email === rule.email;
    if (rule.kind === 'domain') return email?.endsWith(rule.domain) === true;
    return groups.includes(rule.group);
  });
}

export function wantsGroups(rules: readonly AllowRule[]): boolean {
  return rules.some((rule) => rule.kind === 'group');
}

function groupsOf(value: unknown): readonly string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}
