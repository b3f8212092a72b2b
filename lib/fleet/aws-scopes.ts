import type { Check } from './fleet-checks.js';
import type { ClusterConfig } from './fleet-config.js';

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

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What the packaged IAM policies let the fleet functions read and assume, as IAM resource patterns
 * (`*` and `?` as IAM matches them). The one place the stage naming rules live: serverless.yml's
 * `custom.defaults` are these templates (test/unit/fleet/stage-scopes.test.ts compares them), `validate
 * --stage` and `npm run package` check a fleet against them, and the functions check it at cold start
 * against the resolved patterns serverless.yml hands them in the same variables.
 */
export interface AwsScopes {
  readonly stage: string;
  /** The region the stack deploys to; secrets named without an ARN resolve there. */
  readonly region?: string;
  /** `OWN_SECRETS_ARN`: secrets the orchestrator reads for itself (cluster, repository, Argo CD tokens). */
  readonly ownSecrets: readonly string[];
  /** `ASSUMABLE_ROLE_ARNS`: roles the fleet functions may assume (EKS `roleArn`, SecretStore roles). */
  readonly assumableRoles: readonly string[];
  /**
   * `PREFLIGHT_ASSUMABLE_ROLES`: roles the ExternalSecret preflight may assume (a cluster's
   * `preflightRoleArn`); default the stage's `gitops-sync-<stage>-access-*`, as serverless.yml's.
   */
  readonly preflightRoles: readonly string[];
  /** True when the patterns are the stage defaults (a rename then fixes a miss; otherwise the setting does). */
  readonly defaults: {
    readonly ownSecrets: boolean;
    readonly assumableRoles: boolean;
    readonly preflightRoles: boolean;
  };
}

/** The stage `npm run package`/`deploy` and serverless.yml use when none is given. */
export const DEFAULT_STAGE = 'dev';
/** serverless.yml's `provider.region` default. */
export const DEFAULT_DEPLOY_REGION = 'eu-west-1';
/** What a Serverless stage may be (it names tables, roles and secrets). */
export const STAGE_NAME = /^[a-zA-Z0-9-]{1,32}$/;

/** The default patterns, as CloudFormation `!Sub` strings: serverless.yml's `custom.defaults`. */
export function scopeTemplates(stage: string): { ownSecretsArn: string; assumableRoleArns: string } {
  return {
    ownSecretsArn: `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${secretPrefix(stage)}/*`,
    assumableRoleArns: `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${assumableRolePrefix(stage)}*`,
  };
}

/** Every secret the orchestrator reads for itself lives under this name prefix (then `/`). */
export function secretPrefix(stage: string): string {
  return `gitops-sync/${stage}`;
}

/**
 * The scopes of a deploy: the settings when given (comma-separated patterns), else the stage's defaults
 * with any partition and account (unknown before CloudFormation resolves them) and the deploy region.
 */
export function deployScopes(stage: string, region: string | undefined, env: Env = {}): AwsScopes {
  const own = patterns(env.OWN_SECRETS_ARN);
  const roles = patterns(env.ASSUMABLE_ROLE_ARNS);
  // CloudFormation's pseudo parameters, which only the deployed stack knows.
  const pseudo: Record<string, string> = { Partition: 'aws*', AccountId: '*', Region: region ?? '*' };
  const fill = (template: string) =>
    template.replace(/\$\{AWS::([A-Za-z]+)\}/g, (_, name: string) => pseudo[name] ?? '*');
  const templates = scopeTemplates(stage);
  const preflight = patterns(env[PREFLIGHT_ASSUMABLE_ROLES]);
  return {
    stage,
    ...(region === undefined ? {} : { region }),
    ownSecrets: own ?? [fill(templates.ownSecretsArn)],
    assumableRoles: roles ?? [fill(templates.assumableRoleArns)],
    preflightRoles: preflight ?? [fill(templates.assumableRoleArns)],
    defaults: {
      ownSecrets: own === undefined,
      assumableRoles: roles === undefined,
      preflightRoles: preflight === undefined,
    },
  };
}

/**
 * The functions' scopes at cold start: serverless.yml gives every function the resolved patterns in
 * `OWN_SECRETS_ARN` and `ASSUMABLE_ROLE_ARNS`; without them (the local stack, tests) nothing is checked.
 */
export function runtimeScopes(env: Env, stage: string, region: string): AwsScopes | undefined {
  const own = patterns(env.OWN_SECRETS_ARN);
  const roles = patterns(env.ASSUMABLE_ROLE_ARNS);
  if (own === undefined || roles === undefined) return undefined;
  const templates = scopeTemplates(stage);
  const isDefault = (given: readonly string[], template: string) =>
    given.length === 1 && globMatch(template.replace(/\$\{AWS::[A-Za-z]+\}/g, '*'), given[0] ?? '');
  const preflight = patterns(env[PREFLIGHT_ASSUMABLE_ROLES]) ?? roles;
  return {
    stage,
    region,
    ownSecrets: own,
    assumableRoles: roles,
    preflightRoles: preflight,
    defaults: {
      ownSecrets: isDefault(own, templates.ownSecretsArn),
      assumableRoles: isDefault(roles, templates.assumableRoleArns),
      preflightRoles: isDefault(preflight, templates.assumableRoleArns),
    },
  };
}

function patterns(value: string | undefined): readonly string[] | undefined {
  const list = parseRolePatterns(value);
  return list.length === 0 ? undefined : list;
}

/** IAM's resource matching (`iamPatternMatches`): `*` any run of characters, `?` any one character. */
export const globMatch = iamPatternMatches;

// A secret's ARN ends in `-` and six random characters that a name (or a partial ARN) leaves out.
const ARN_SUFFIX = '-AbCdEf';

/** Whether the functions may read the secret (an ARN, or a name resolved in their own account and region). */
export function secretAllowed(secret: string, scopes: AwsScopes): boolean {
  if (secret.startsWith('arn:')) {
    return scopes.ownSecrets.some((p) => globMatch(p, secret) || globMatch(p, `${secret}${ARN_SUFFIX}`));
  }
  return scopes.ownSecrets.some((pattern) => {
    const at = pattern.indexOf(':secret:');
    if (at < 0) return pattern === '*';
    const region = pattern.split(':')[3] ?? '*';
    if (scopes.region !== undefined && !globMatch(region, scopes.region)) return false;
    return globMatch(pattern.slice(at + ':secret:'.length), `${secret}${ARN_SUFFIX}`);
  });
}

/** A fleet secret field's scope check: the problem names the setting to change, or the name to use. */
export function secretInScope(scopes: AwsScopes): Check {
  return (value) => {
    if (secretAllowed(value, scopes)) return undefined;
    const name = value.startsWith('arn:') ? value.slice(value.indexOf(':secret:') + 8) : value;
    const region = value.startsWith('arn:') ? value.split(':')[3] : undefined;
    const where =
      region !== undefined && scopes.region !== undefined && region !== scopes.region
        ? ` (it is in ${region}; the stack deploys to ${scopes.region})`
        : '';
    const rename = scopes.defaults.ownSecrets
      ? ` or rename to ${secretPrefix(scopes.stage)}/${baseName(name.replace(/-[A-Za-z0-9]{6}$/, ''), '/')}`
      : '';
    return `${value} is outside what stage ${scopes.stage} may read (${scopes.ownSecrets.join(', ')})${where} — set OWN_SECRETS_ARN${rename}`;
  };
}

/** A fleet role field's scope check (`auth.eks.roleArn`, a store override's `role`): ASSUMABLE_ROLE_ARNS. */
export function roleInScope(scopes: AwsScopes): Check {
  return roleCheck(scopes, scopes.assumableRoles, 'ASSUMABLE_ROLE_ARNS', scopes.defaults.assumableRoles);
}

/** The preflight's roles (a cluster's `preflightRoleArn`): PREFLIGHT_ASSUMABLE_ROLES. */
export function preflightRoleInScope(scopes: AwsScopes): Check {
  return roleCheck(scopes, scopes.preflightRoles, PREFLIGHT_ASSUMABLE_ROLES, scopes.defaults.preflightRoles);
}

function roleCheck(
  scopes: AwsScopes,
  allowed: readonly string[],
  setting: string,
  byDefault: boolean,
): Check {
  return (value) => {
    if (allowed.some((pattern) => globMatch(pattern, value))) return undefined;
    const name = value.slice(value.lastIndexOf('/') + 1);
    const rename = byDefault
      ? ` or rename to ${assumableRolePrefix(scopes.stage)}${baseName(name, '-')}`
      : '';
    return `${value} is outside what stage ${scopes.stage} may assume (${allowed.join(', ')}) — set ${setting}${rename}`;
  };
}

/** What is left of a name once our own prefix (with any stage, and `access-`) is taken off it. */
function baseName(name: string, separator: '/' | '-'): string {
  if (separator === '/') {
    const parts = name.split('/');
    if (parts[0] !== 'gitops-sync') return name;
    return parts.length > 2 ? parts.slice(2).join('/') : (parts[1] ?? name);
  }
  const stripped = name.replace(/^gitops-sync-(?:[a-z0-9]+-)?(?:access-)?/, '');
  return stripped === '' ? name : stripped;
}

/**
 * Whether an `auth.eks` cluster's endpoint or CA comes from DescribeCluster: no `server`, or an https one
 * without `caData` (an EKS API server's certificate is signed by the cluster's own CA).
 */
export function needsEksDescribe(cluster: Pick<ClusterConfig, 'server' | 'caData' | 'auth'>): boolean {
  if (!('eks' in cluster.auth)) return false;
  return (
    cluster.server === undefined || (cluster.server.startsWith('https:') && cluster.caData === undefined)
  );
}

const FULL_SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+-[A-Za-z0-9]{6}$/;

/**
 * The deploy settings whose policy names exactly the ARN given (`WEBHOOK_SECRET_ARN`, `SLACK_SECRET_ARN`):
 * IAM matches a secret by its full ARN, so one without the six-character suffix matches nothing, and the
 * functions read Secrets Manager in the stack's region. Each problem as `NAME: problem — what to set`.
 */
export function secretSettingProblems(env: Env, region: string): string[] {
  const problems: string[] = [];
  for (const name of ['WEBHOOK_SECRET_ARN', 'SLACK_SECRET_ARN']) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    const full = FULL_SECRET_ARN.exec(value);
    if (full === null) {
      problems.push(
        `${name}: ${value} is not a full secret ARN, and the policy grants exactly what is set — set ${name} to the ARN with its six-character suffix (aws secretsmanager describe-secret --secret-id <name> --query ARN)`,
      );
    } else if (full[1] !== region) {
      problems.push(
        `${name}: ${value} is in ${full[1]}; the stack deploys to ${region} — set ${name} to a secret in ${region} or deploy with --region ${full[1]}`,
      );
    }
  }
  return problems;
}
