import { SEVERITIES, type Severity } from './audit/types.js';
import { ConfigError } from './errors.js';
import {
  type AwsScopes,
  PREFLIGHT_ASSUMABLE_ROLES,
  parseRolePatterns,
  runtimeScopes,
} from './fleet/aws-scopes.js';
import { type EcrCatchUpSettings, ecrCatchUpSettings } from './registry/ecr-catch-up-settings.js';
import { type UiAuthSettings, uiAuthSettings } from './ui-auth/settings.js';

export type Env = Readonly<Record<string, string | undefined>>;

export type SlackConfig =
  | { readonly mode: 'bot'; readonly token: string; readonly channel: string; readonly apiUrl?: string }
  | { readonly mode: 'webhook'; readonly webhookUrl: string }
  /**
   * `SLACK_SECRET_ARN`: the bot token (with `channel`) or the webhook URL (without) read from Secrets
   * Manager, `{"botToken": "xoxb-...", "webhookUrl": "https://hooks.slack.com/..."}`, so no Slack credential
   * sits in an environment variable or the template.
   */
  | {
      readonly mode: 'secret';
      readonly secretArn: string;
      readonly channel?: string;
      readonly apiUrl?: string;
    }
  | { readonly mode: 'off' };

export interface WebhookSecretsConfig {
  /**
   * Secrets Manager secret holding `{"github": "...", "gitlab": "...", "bitbucket": ...}`, one field per
   * provider route name (each may be a list, for rotation).
   */
  readonly secretArn?: string;
  readonly github: readonly string[];
  readonly gitlab: readonly string[];
  readonly bitbucket?: readonly string[];
  readonly 'bitbucket-server'?: readonly string[];
  readonly 'azure-devops'?: readonly string[];
  readonly gitea?: readonly string[];
  readonly generic?: readonly string[];
  /** `ECR_EVENTS_SECRET`: signs `/webhooks/ecr` (locally, tests; in AWS EventBridge invokes the function). */
  readonly ecr?: readonly string[];
  /** `HARBOR_WEBHOOK_SECRET`: the `Authorization` header Harbor's webhook sends to `/webhooks/harbor`. */
  readonly harbor?: readonly string[];
}

/** The registry events this deployment takes: another account's or region's are ignored (202). */
export interface RegistryScope {
  readonly account?: string;
  readonly region?: string;
}

/** Where `FLEET_SOURCE` keeps the fleet file: an SSM parameter or an S3 object. */
export type FleetLocation =
  | { readonly kind: 'ssm'; readonly name: string }
  | { readonly kind: 's3'; readonly bucket: string; readonly key: string };

export interface Config {
  readonly stage: string;
  readonly region: string;
  readonly tableName: string;
  readonly fleetConfigPath?: string;
  /** `FLEET_SOURCE` (`ssm:/path` or `s3://bucket/key`): read instead of FLEET_CONFIG, again after the TTL. */
  readonly fleetSource?: FleetLocation;
  readonly fleetTtlSeconds: number;
  readonly ssmEndpoint?: string;
  readonly s3Endpoint?: string;
  readonly dynamodbEndpoint?: string;
  readonly secretsManagerEndpoint?: string;
  readonly stsEndpoint?: string;
  /** `PREFLIGHT_ASSUMABLE_ROLES`: the ARN patterns the packaged policy lets the preflight assume (absent: unchecked locally). */
  readonly preflightAssumableRoles?: readonly string[];
  /** `EKS_ENDPOINT`: DescribeCluster's and the Pod Identity lookup's endpoint override (tests, VPC endpoints). */
  readonly eksEndpoint?: string;
  /**
   * `OWN_SECRETS_ARN` and `ASSUMABLE_ROLE_ARNS` as serverless.yml resolves them: the fleet must stay
   * inside them (checked at every fleet read); absent locally, where nothing is checked.
   */
  readonly awsScopes?: AwsScopes;
  readonly webhookSecrets: WebhookSecretsConfig;
  /** `ECR_EVENTS_ACCOUNT`, `ECR_EVENTS_REGION` (unset: any). */
  readonly registryScope: RegistryScope;
  /** `ECR_REPOSITORY_ARNS`, `ECR_ENDPOINT`: reconcile's ECR catch-up (absent: no DescribeImages call). */
  readonly ecrCatchUp?: EcrCatchUpSettings;
  readonly slack: SlackConfig;
  /** SQS queue feeding `fanout`; absent locally, where the in-process queue is used. */
  readonly queueUrl?: string;
  /** SQS queue feeding `track` (delayed, re-enqueues itself). */
  readonly trackQueueUrl?: string;
  /** `SQS_ENDPOINT`: SQS endpoint override (an SQS-compatible server locally, or AWS). */
  readonly sqsEndpoint?: string;
  /** `AWS_REQUEST_TIMEOUT_MS`: the request timeout of every AWS SDK call (default 5000). */
  readonly awsRequestTimeoutMs: number;
  /** `AWS_CONNECT_TIMEOUT_MS`: the TCP/TLS connect timeout of every AWS SDK call (default 2000). */
  readonly awsConnectTimeoutMs: number;
  readonly apiToken?: string;
  /** Base URL people reach the API (and its `/ui/` pages) at: commit statuses link there. */
  readonly publicUrl?: string;
  /** `UI_AUTH` (none, iam, oidc) and the OpenID Connect settings of the page's login. */
  readonly uiAuth: UiAuthSettings;
  readonly maxBodyBytes: number;
  readonly deliveryTtlSeconds: number;
  readonly trackDeadlineSeconds: number;
  readonly trackIntervalSeconds: number;
  readonly trackMaxIntervalSeconds: number;
  /** How long a cluster's track chain may go unpolled before the sweep starts it again. */
  readonly trackChainLeaseSeconds: number;
  readonly reconcileIntervalSeconds: number;
  readonly missedWebhookGraceSeconds: number;
  readonly refreshConcurrency: number;
  readonly port: number;
  readonly logLevel: LogLevel;
  /**
   * `DIGEST_MIN_SEVERITY`: findings less severe are left out of the reconcile digest in Slack (default
   * `medium`); the fleet file's `audit.digest.minSeverity` overrides it. `GET /findings` serves them all.
   */
  readonly digestMinSeverity: Severity;
}

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const MB = 1024 * 1024;

/**
 * Reads and validates every setting once (at cold start). The first problem found stops start-up with
 * one line naming the setting; values are never echoed, since some of them are secrets.
 */
export function loadConfig(env: Env): Config {
  const slack = slackConfig(env);
  const webhookSecrets: WebhookSecretsConfig = {
    ...optional('secretArn', arn(env, 'WEBHOOK_SECRET_ARN', 'secretsmanager')),
    github: secretList(env, 'GITHUB_WEBHOOK_SECRET'),
    gitlab: secretList(env, 'GITLAB_WEBHOOK_TOKEN'),
    bitbucket: secretList(env, 'BITBUCKET_WEBHOOK_SECRET'),
    'bitbucket-server': secretList(env, 'BITBUCKET_SERVER_WEBHOOK_SECRET'),
    'azure-devops': secretList(env, 'AZURE_DEVOPS_WEBHOOK_SECRET'),
    gitea: secretList(env, 'GITEA_WEBHOOK_SECRET'),
    generic: secretList(env, 'GENERIC_WEBHOOK_SECRET'),
    ecr: secretList(env, 'ECR_EVENTS_SECRET'),
    harbor: secretList(env, 'HARBOR_WEBHOOK_SECRET'),
  };
  const trackIntervalSeconds = integer(env, 'TRACK_INTERVAL_SECONDS', 5, 1, 900);
  const config: Config = {
    stage: text(env, 'STAGE') ?? 'local',
    region: text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    tableName: required(env, 'TABLE_NAME'),
    ...optional('fleetConfigPath', text(env, 'FLEET_CONFIG')),
    ...optional('fleetSource', fleetLocation(env, 'FLEET_SOURCE')),
    fleetTtlSeconds: integer(env, 'FLEET_TTL_SECONDS', 60, 1, 24 * 3600),
    ...optional('ssmEndpoint', url(env, 'SSM_ENDPOINT')),
    ...optional('s3Endpoint', url(env, 'S3_ENDPOINT')),
    ...optional('dynamodbEndpoint', url(env, 'DYNAMODB_ENDPOINT')),
    ...optional('secretsManagerEndpoint', url(env, 'SECRETS_MANAGER_ENDPOINT')),
    ...optional('stsEndpoint', url(env, 'STS_ENDPOINT')),
    ...optional('preflightAssumableRoles', rolePatterns(text(env, PREFLIGHT_ASSUMABLE_ROLES))),
    ...optional('eksEndpoint', url(env, 'EKS_ENDPOINT')),
    ...optional('awsScopes', scopes(env)),
    webhookSecrets,
    registryScope: registryScope(env),
    ...optional('ecrCatchUp', ecrCatchUpSettings(env)),
    slack,
    ...optional('queueUrl', url(env, 'QUEUE_URL')),
    ...optional('trackQueueUrl', url(env, 'TRACK_QUEUE_URL')),
    ...optional('sqsEndpoint', url(env, 'SQS_ENDPOINT')),
    awsRequestTimeoutMs: integer(env, 'AWS_REQUEST_TIMEOUT_MS', 5000, 100, 60_000),
    awsConnectTimeoutMs: integer(env, 'AWS_CONNECT_TIMEOUT_MS', 2000, 100, 60_000),
    ...optional('apiToken', text(env, 'API_TOKEN')),
    ...optional('publicUrl', url(env, 'PUBLIC_URL')?.replace(/\/+$/, '')),
    uiAuth: uiAuthSettings(env),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 10 * MB, 1024, 64 * MB),
    deliveryTtlSeconds: integer(env, 'DELIVERY_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    trackDeadlineSeconds: integer(env, 'TRACK_DEADLINE_SECONDS', 600, 10, 24 * 3600),
    trackIntervalSeconds,
    trackMaxIntervalSeconds: integer(
      env,
      'TRACK_MAX_INTERVAL_SECONDS',
      Math.max(30, trackIntervalSeconds),
      trackIntervalSeconds,
      900,
    ),
    trackChainLeaseSeconds: integer(env, 'TRACK_CHAIN_LEASE_SECONDS', 120, 2, 3600),
    reconcileIntervalSeconds: integer(env, 'RECONCILE_INTERVAL_SECONDS', 300, 1, 24 * 3600),
    missedWebhookGraceSeconds: integer(env, 'MISSED_WEBHOOK_GRACE_SECONDS', 120, 0, 24 * 3600),
    refreshConcurrency: integer(env, 'REFRESH_CONCURRENCY', 10, 1, 200),
    port: integer(env, 'PORT', 3000, 0, 65535),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'INFO'),
    digestMinSeverity: oneOf(env, 'DIGEST_MIN_SEVERITY', SEVERITIES, 'medium'),
  };
  if (config.queueUrl !== undefined && config.trackQueueUrl === undefined) {
    throw new ConfigError('TRACK_QUEUE_URL', 'is required when QUEUE_URL is set');
  }
  return Object.freeze(config);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function rolePatterns(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const patterns = parseRolePatterns(value);
  for (const pattern of patterns) {
    if (!/^arn:[*a-z-]+:iam::[*?\d]*:role\/\S+$/.test(pattern))
      throw new ConfigError(PREFLIGHT_ASSUMABLE_ROLES, `${pattern} is not an IAM role ARN pattern`);
  }
  return patterns;
}

function registryScope(env: Env): RegistryScope {
  const account = text(env, 'ECR_EVENTS_ACCOUNT');
  if (account !== undefined && !/^[0-9]{12}$/.test(account))
    throw new ConfigError('ECR_EVENTS_ACCOUNT', 'must be a 12-digit AWS account id');
  const region = text(env, 'ECR_EVENTS_REGION');
  if (region !== undefined && !/^[a-z]{2}(?:-[a-z]+)+-[0-9]$/.test(region))
    throw new ConfigError('ECR_EVENTS_REGION', 'must be an AWS region such as eu-west-1');
  return { ...optional('account', account), ...optional('region', region) };
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, 'is required');
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, 'must be a whole number');
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

function url(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, 'must be an absolute http(s) URL');
  }
  return raw;
}

function arn(env: Env, name: string, service: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!new RegExp(`^arn:aws[a-z-]*:${service}:[a-z0-9-]+:\\d{12}:`).test(raw)) {
    throw new ConfigError(name, `must be an ARN of ${service}`);
  }
  return raw;
}

function scopes(env: Env): AwsScopes | undefined {
  for (const name of ['OWN_SECRETS_ARN', 'ASSUMABLE_ROLE_ARNS']) {
    const raw = text(env, name);
    if (raw?.split(',').some((p) => !/^(arn:\S+|\*)$/.test(p.trim())))
      throw new ConfigError(name, 'must be IAM resource ARN patterns, comma-separated');
  }
  const stage = text(env, 'STAGE') ?? 'local';
  const region = text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1';
  return runtimeScopes(env, stage, region);
}

function fleetLocation(env: Env, name: string): FleetLocation | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  const ssm = /^ssm:((?:arn:aws[a-z-]*:ssm:[a-z0-9-]+:\d{12}:parameter)?\/?[A-Za-z0-9_.\-/]{1,2048})$/.exec(
    raw,
  );
  if (ssm?.[1] !== undefined) return { kind: 'ssm', name: ssm[1] };
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.{1,1024})$/.exec(raw);
  if (s3?.[1] !== undefined && s3[2] !== undefined) return { kind: 's3', bucket: s3[1], key: s3[2] };
  throw new ConfigError(name, 'must be ssm:/path/to/parameter or s3://bucket/key');
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const match = values.find((v) => v === raw.toUpperCase() || v === raw);
  if (match === undefined) throw new ConfigError(name, `must be one of ${values.join(', ')}`);
  return match;
}

/** Several comma-separated values are accepted so a secret can be rotated without downtime. */
function secretList(env: Env, name: string): readonly string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const values = raw.split(',').map((v) => v.trim());
  if (values.some((v) => v === ''))
    throw new ConfigError(name, 'has an empty entry in its comma-separated list');
  return values;
}

function slackConfig(env: Env): SlackConfig {
  const webhookUrl = url(env, 'SLACK_WEBHOOK_URL');
  const token = text(env, 'SLACK_BOT_TOKEN');
  const channel = text(env, 'SLACK_CHANNEL');
  const apiUrl = url(env, 'SLACK_API_URL');
  const secretArn = arn(env, 'SLACK_SECRET_ARN', 'secretsmanager');
  if (secretArn !== undefined) {
    if (token !== undefined || webhookUrl !== undefined) {
      throw new ConfigError('SLACK_SECRET_ARN', 'is exclusive with SLACK_BOT_TOKEN and SLACK_WEBHOOK_URL');
    }
    return { mode: 'secret', secretArn, ...optional('channel', channel), ...optional('apiUrl', apiUrl) };
  }
  if (webhookUrl !== undefined && token !== undefined) {
    throw new ConfigError('SLACK_WEBHOOK_URL', 'and SLACK_BOT_TOKEN are exclusive; set one');
  }
  if (token !== undefined) {
    if (channel === undefined) throw new ConfigError('SLACK_CHANNEL', 'is required with SLACK_BOT_TOKEN');
    return { mode: 'bot', token, channel, ...optional('apiUrl', apiUrl) };
  }
  if (channel !== undefined) throw new ConfigError('SLACK_BOT_TOKEN', 'is required with SLACK_CHANNEL');
  if (webhookUrl !== undefined) return { mode: 'webhook', webhookUrl };
  return { mode: 'off' };
}

/** The only place the process environment is read (Lambda cold start, local stack). */
export function loadConfigFromProcess(): Config {
  return loadConfig(process.env);
}
