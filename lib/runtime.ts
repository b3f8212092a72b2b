import { SQSClient } from '@aws-sdk/client-sqs';
import type { FindingsReader } from './api/findings-reader.js';
import { handleApi } from './api/handle-api.js';
import type { ApiApp, App, FleetApp, WebhookApp } from './app.js';
import { createCachedSecretReader } from './aws/cached-secrets.js';
import { createSecretReader } from './aws/secret-reader.js';
import { createSecretsManagerApi } from './aws/secrets-manager.js';
import type { Config } from './config.js';
import { ConfigError } from './errors.js';
import type { FleetConfig } from './fleet/fleet-config.js';
import { createLogger } from './logger.js';
import { createEmfMetrics } from './observability/emf-metrics.js';
import {
  type Clock,
  type Logger,
  type Metrics,
  type Queue,
  type SecretReader,
  systemClock,
} from './ports.js';
import type { PushMessage, TrackMessage } from './queue/messages.js';
import { sqsQueue } from './queue/sqs-queue.js';
import type { RolloutReader } from './rollouts/rollout-store.js';
import type { FleetFunctions } from './runtime-fleet.js';
import type { SecretsManagerApi } from './secrets/secrets-manager-api.js';
import { dynamoDeliveryStore } from './store/deliveries.js';
import { createTableRef, type TableRef } from './store/dynamo.js';
import { dynamoFindingsReader, dynamoFindingsStore } from './store/findings.js';
import { dynamoRolloutReader } from './store/rollout-items.js';
import { type DynamoRolloutWriter, dynamoRolloutWriter } from './store/rollouts.js';
import { handleWebhook } from './webhook/handle-webhook.js';
import { webhookSecretSource } from './webhook/secret-source.js';

/** What the local stack and tests swap in; everything else is built from the config. */
export interface RuntimeOverrides {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly clock?: Clock;
  readonly pushQueue?: Queue<PushMessage>;
  readonly trackQueue?: Queue<TrackMessage>;
  /** The fleet itself (the local simulator), instead of reading FLEET_CONFIG. */
  readonly fleet?: FleetConfig;
  readonly secretReader?: SecretReader;
  readonly findings?: FindingsReader;
  /** Where fetched Git commits are kept (default: the OS temp dir, `/tmp` in Lambda). */
  readonly gitCacheDir?: string;
}

/** What every function's composition starts from: the config, the overrides and the cross-cutting ports. */
export interface RuntimeBase {
  readonly config: Config;
  readonly overrides: RuntimeOverrides;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
}

const RECORD_TTL_SECONDS = 90 * 24 * 3600;

/** What the fleet functions (fanout, track, reconcile) share, built once per cold start. */
export interface SharedRuntime extends RuntimeBase {
  readonly table: TableRef;
  readonly secretsManager: SecretsManagerApi;
  readonly secretReader: SecretReader;
  /** The same secrets through Powertools Parameters (TTL cache): the Slack credential. */
  readonly cachedSecrets: SecretReader;
  readonly pushQueue: Queue<PushMessage>;
  readonly trackQueue: Queue<TrackMessage>;
  readonly rollouts: DynamoRolloutWriter;
  readonly reader: RolloutReader;
  readonly findings: ReturnType<typeof dynamoFindingsStore>;
}

export function runtimeBase(config: Config, overrides: RuntimeOverrides = {}): RuntimeBase {
  return {
    config,
    overrides,
    logger: overrides.logger ?? createLogger({ level: config.logLevel }),
    metrics: overrides.metrics ?? createEmfMetrics({ service: 'gitops-sync' }),
    clock: overrides.clock ?? systemClock,
  };
}

export function tableOf(config: Config): TableRef {
  return createTableRef({
    tableName: config.tableName,
    region: config.region,
    ...(config.dynamodbEndpoint === undefined ? {} : { endpoint: config.dynamodbEndpoint }),
  });
}

/** The SQS queue at `url`, or the override (the local stack's in-process queue). */
export function queueOf<M>(
  base: RuntimeBase,
  override: Queue<M> | undefined,
  url: string | undefined,
  name: string,
) {
  if (override !== undefined) return override;
  if (url === undefined) throw new ConfigError(name, 'is required outside the local stack');
  return sqsQueue<M>(new SQSClient({ region: base.config.region }), url);
}

/** The orchestrator's own secrets read with its own role (Powertools Parameters, TTL cache). */
export function ownSecrets(base: RuntimeBase): SecretReader {
  const { config, overrides } = base;
  return (
    overrides.secretReader ??
    createCachedSecretReader({
      region: config.region,
      ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    })
  );
}

/**
 * The composition root, one builder per function so each Lambda bundle holds only what its function
 * imports (`functions/<name>.ts` calls one builder); `createRuntime` composes all five for the local stack.
 */
export function createWebhookApp(config: Config, overrides: RuntimeOverrides = {}): WebhookApp {
  const base = runtimeBase(config, overrides);
  const { logger, metrics, clock } = base;
  const deliveries = dynamoDeliveryStore(tableOf(config), config.deliveryTtlSeconds);
  const pushQueue = queueOf(base, overrides.pushQueue, config.queueUrl, 'QUEUE_URL');
  const secrets = webhookSecretSource(
    config,
    config.webhookSecrets.secretArn === undefined ? undefined : ownSecrets(base),
  );
  return {
    logger,
    metrics,
    maxBodyBytes: config.maxBodyBytes,
    webhook: (request, provider) =>
      handleWebhook(request, provider, {
        secrets,
        deliveries,
        queue: pushQueue,
        clock,
        logger,
        metrics,
        maxBodyBytes: config.maxBodyBytes,
      }),
  };
}

export function createApiApp(config: Config, overrides: RuntimeOverrides = {}): ApiApp {
  const { logger, metrics } = runtimeBase(config, overrides);
  const table = tableOf(config);
  const reader = dynamoRolloutReader(table);
  const findings = overrides.findings ?? dynamoFindingsReader(table);
  return {
    logger,
    metrics,
    api: (request) =>
      handleApi(request, {
        rollouts: reader,
        findings,
        ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
        health: async () => ({ stage: config.stage }),
        logger,
      }),
  };
}

/**
 * fanout, track and reconcile (`runtime-fleet.ts`), built on their first call: a cold start that fails on
 * the fleet file fails the invocation loudly, and importing the bundle stays cheap.
 */
export function createFleetApp(config: Config, overrides: RuntimeOverrides = {}): FleetApp {
  const base = runtimeBase(config, overrides);
  const { clock } = base;
  const table = tableOf(config);
  const secretsManager = createSecretsManagerApi({
    ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    ...(config.stsEndpoint === undefined ? {} : { stsEndpoint: config.stsEndpoint }),
    clock,
  });
  const shared: SharedRuntime = {
    ...base,
    table,
    secretsManager,
    secretReader:
      overrides.secretReader ?? createSecretReader({ api: secretsManager, region: config.region, clock }),
    cachedSecrets: ownSecrets(base),
    pushQueue: queueOf(base, overrides.pushQueue, config.queueUrl, 'QUEUE_URL'),
    trackQueue: queueOf(base, overrides.trackQueue, config.trackQueueUrl, 'TRACK_QUEUE_URL'),
    rollouts: dynamoRolloutWriter(table, RECORD_TTL_SECONDS),
    reader: dynamoRolloutReader(table),
    findings: dynamoFindingsStore(table),
  };
  let fleetFunctions: Promise<FleetFunctions> | undefined;
  const fleet = (): Promise<FleetFunctions> => {
    fleetFunctions ??= import('./runtime-fleet.js').then((m) => m.createFleetFunctions(shared));
    return fleetFunctions;
  };
  return {
    logger: base.logger,
    metrics: base.metrics,
    fanout: async (message) => (await fleet()).fanout(message),
    track: async (message) => (await fleet()).track(message),
    reconcile: async (options) => (await fleet()).reconcile(options),
  };
}

/** Every function in one App: the local stack and the benchmarks run all five in one process. */
export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): App {
  const base = runtimeBase(config, overrides);
  const shared = { ...overrides, logger: base.logger, metrics: base.metrics, clock: base.clock };
  return {
    ...createWebhookApp(config, shared),
    ...createApiApp(config, shared),
    ...createFleetApp(config, shared),
  };
}
