import { SEVERITIES, type Severity } from './audit/types.js';
import { awsScopes, type FleetLocation, fleetLocation, rolePatterns } from './config/aws-settings.js';
import { type Env, integer, oneOf, optional, required, text, url } from './config/env-read.js';
import { type RegistryScope, registryScope } from './config/registry-scope.js';
import { type SlackConfig, slackConfig } from './config/slack-settings.js';
import { type WebhookSecretsConfig, webhookSecretsConfig } from './config/webhook-secrets.js';
import { ConfigError } from './errors.js';
import { type AwsScopes, PREFLIGHT_ASSUMABLE_ROLES } from './fleet/aws-scopes.js';
import { type EcrCatchUpSettings, ecrCatchUpSettings } from './registry/ecr-catch-up-settings.js';

// The settings' parts live in lib/config/; their types are named here too, where every caller imports them.
export type { FleetLocation } from './config/aws-settings.js';
export type { Env } from './config/env-read.js';
export type { RegistryScope } from './config/registry-scope.js';
export type { SlackConfig } from './config/slack-settings.js';
export type { WebhookSecretsConfig } from './config/webhook-secrets.js';

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
  readonly maxBodyBytes: number;
  readonly deliveryTtlSeconds: number;
  readonly trackDeadlineSeconds: number;
  /** `FREEZE_CACHE_SECONDS`: how long a container trusts the freezes it read (default 10). */
  readonly freezeCacheSeconds: number;
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
  const webhookSecrets = webhookSecretsConfig(env);
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
    ...optional('awsScopes', awsScopes(env)),
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
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 10 * MB, 1024, 64 * MB),
    deliveryTtlSeconds: integer(env, 'DELIVERY_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    trackDeadlineSeconds: integer(env, 'TRACK_DEADLINE_SECONDS', 600, 10, 24 * 3600),
    freezeCacheSeconds: integer(env, 'FREEZE_CACHE_SECONDS', 10, 0, 300),
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

/**
 * The only place the process environment is read (Lambda cold start): `loadConfig`, or a function's own
 * loader built on it (the API's `loadApiConfig`).
 */
export function loadFromProcess<C>(load: (env: Env) => C): C {
  return load(process.env);
}
