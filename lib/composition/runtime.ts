import { SQSClient } from '@aws-sdk/client-sqs';
import { handleApi } from '../api/handle-api.js';
import type { ApiApp, FleetApp, WebhookApp } from '../app.js';
import { createCachedSecretReader } from '../aws/cached-secrets.js';
import { createFleetTextReader } from '../aws/fleet-text.js';
import { awsRequestHandler, WEBHOOK_AWS } from '../aws/http-handler.js';
import { createSecretReader } from '../aws/secret-reader.js';
import { createSecretsManagerApi } from '../aws/secrets-manager.js';
import { checkRunActions } from '../check-run/retry-action.js';
import type { Config } from '../config.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { FleetConfig } from '../fleet/fleet-config.js';
import { createFleetSource, type FleetSource, fixedFleetSource } from '../fleet/fleet-source.js';
import { createLogger } from '../logger.js';
import { createEmfMetrics } from '../observability/emf-metrics.js';
import { type Logger, type PayloadStore, type Queue, type SecretReader, systemClock } from '../ports.js';
import type { FanoutMessage, PointerMessage, TrackMessage } from '../queue/messages.js';
import { offloadQueue, resolveQueueBody } from '../queue/offload-queue.js';
import { sqsQueue } from '../queue/sqs-queue.js';
import { dynamoDeliveryStore } from '../store/deliveries.js';
import { createTableRef, type TableRef } from '../store/dynamo.js';
import { dynamoFindingsReader, dynamoFindingsStore } from '../store/findings.js';
import { dynamoLoginStates } from '../store/login-states.js';
import { dynamoPayloadStore } from '../store/payloads.js';
import { dynamoRolloutIndex } from '../store/rollout-index.js';
import { dynamoRolloutReader } from '../store/rollout-items.js';
import { dynamoRolloutWriter } from '../store/rollouts.js';
import { uiAccess } from '../ui-auth/ui-access.js';
import { handleWebhook } from '../webhook/handle-webhook.js';
import { webhookSecretSource } from '../webhook/secret-source.js';
import { apiControl, releaseControl } from './runtime-control.js';
import type { FleetBuilder, FleetFunctions } from './runtime-fleet.js';
import type { RuntimeBase, RuntimeOverrides, SharedRuntime } from './runtime-model.js';

export type { RuntimeOverrides } from './runtime-model.js';

const RECORD_TTL_SECONDS = 90 * 24 * 3600;
/** Outlives a message on any queue: 4 days' retention, then up to 14 days in a dead-letter queue. */
const PAYLOAD_TTL_SECONDS = 15 * 24 * 3600;

export function runtimeBase(config: Config, overrides: RuntimeOverrides = {}): RuntimeBase {
  return {
    config,
    overrides,
    logger: overrides.logger ?? createLogger({ level: config.logLevel }),
    metrics: overrides.metrics ?? createEmfMetrics({ service: 'gitops-sync' }),
    clock: overrides.clock ?? systemClock,
  };
}

const httpOf = (config: Config) => ({
  requestTimeoutMs: config.awsRequestTimeoutMs,
  connectionTimeoutMs: config.awsConnectTimeoutMs,
});

export function tableOf(config: Config, maxAttempts?: number): TableRef {
  return createTableRef({
    tableName: config.tableName,
    region: config.region,
    http: httpOf(config),
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
    ...(config.dynamodbEndpoint === undefined ? {} : { endpoint: config.dynamodbEndpoint }),
  });
}

/**
 * The SQS queue at `url`, or the override (the local stack's in-process queue), both wrapped so a message
 * too large for SQS travels as a pointer to the payload store.
 */
export function queueOf<M extends { readonly type: string }>(
  base: RuntimeBase,
  override: Queue<M | PointerMessage> | undefined,
  url: string | undefined,
  payloads: PayloadStore,
  name: string,
): Queue<M> {
  if (override !== undefined) return offloadQueue(override, payloads);
  if (url === undefined) throw new ConfigError(name, 'is required outside the local stack');
  const { config } = base;
  const client = new SQSClient({
    region: config.region,
    ...(base.awsMaxAttempts === undefined ? {} : { maxAttempts: base.awsMaxAttempts }),
    requestHandler: awsRequestHandler(httpOf(config)),
    ...(config.sqsEndpoint === undefined ? {} : { endpoint: config.sqsEndpoint }),
  });
  return offloadQueue(sqsQueue<M | PointerMessage>(client, url), payloads);
}

/** The orchestrator's own secrets read with its own role (Powertools Parameters, TTL cache). */
export function ownSecrets(base: RuntimeBase): SecretReader {
  const { config, overrides } = base;
  return (
    overrides.secretReader ??
    createCachedSecretReader({
      region: config.region,
      requestTimeoutMs: config.awsRequestTimeoutMs,
      ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    })
  );
}

/** The fleet: FLEET_SOURCE (SSM/S3, re-read on its TTL), FLEET_CONFIG, or the local stack's simulator. */
export function fleetSourceOf(base: RuntimeBase): FleetSource {
  const { config, overrides, clock, logger } = base;
  if (overrides.fleet !== undefined) return fixedFleetSource(overrides.fleet);
  return createFleetSource(config, {
    clock,
    logger,
    mode: overrides.fleetMode ?? 'deployed',
    readRemote: createFleetTextReader({
      region: config.region,
      ...(config.ssmEndpoint === undefined ? {} : { ssmEndpoint: config.ssmEndpoint }),
      ...(config.s3Endpoint === undefined ? {} : { s3Endpoint: config.s3Endpoint }),
    }),
  });
}

/**
 * The composition root, one builder per function so each Lambda bundle holds only what its function
 * imports (`functions/<name>.ts` calls one builder; the fleet ones are in `runtime-fleet-apps.ts`);
 * `createRuntime` (`runtime-local.ts`) composes all five for the local stack.
 */
export function createWebhookApp(fullConfig: Config, overrides: RuntimeOverrides = {}): WebhookApp {
  // Every AWS call of the webhook fits in the Git host's wait (WEBHOOK_AWS): shorter timeouts, fewer tries.
  const config: Config = {
    ...fullConfig,
    awsRequestTimeoutMs: Math.min(fullConfig.awsRequestTimeoutMs, WEBHOOK_AWS.requestTimeoutMs),
    awsConnectTimeoutMs: Math.min(fullConfig.awsConnectTimeoutMs, WEBHOOK_AWS.connectionTimeoutMs),
  };
  const base = { ...runtimeBase(config, overrides), awsMaxAttempts: WEBHOOK_AWS.maxAttempts };
  const { logger, metrics, clock } = base;
  const table = tableOf(config, WEBHOOK_AWS.maxAttempts);
  const deliveries = dynamoDeliveryStore(table, config.deliveryTtlSeconds);
  const payloads = dynamoPayloadStore(table, PAYLOAD_TTL_SECONDS);
  const pushQueue = queueOf<FanoutMessage>(base, overrides.pushQueue, config.queueUrl, payloads, 'QUEUE_URL');
  const fleetSource = fleetSourceOf(base);
  const secrets = webhookSecretSource(
    config,
    config.webhookSecrets.secretArn === undefined ? undefined : ownSecrets(base),
  );
  // The webhook refuses pushes (503, so the Git host retries) while the fleet is invalid or unreadable.
  const guardedPushQueue: Queue<FanoutMessage> = {
    async send(message, options) {
      try {
        await fleetSource.current();
      } catch (error) {
        logger.error('push refused: the fleet is invalid', {
          source: fleetSource.name,
          error: firstLine(error),
        });
        throw error;
      }
      return pushQueue.send(message, options);
    },
    sendBatch: (entries) => pushQueue.sendBatch(entries),
  };
  // A check run's "Retry failed": the same release control as `POST /rollouts/{sha}/retry`.
  const actions = checkRunActions({
    // Only the control: the freezes (and their DeleteItem) stay the API's.
    control: releaseControl(base, table, dynamoRolloutReader(table), fanoutQueueOf(base, table)).control,
    repositories: async () => (await fleetSource.current()).repositories,
  });
  return {
    logger,
    metrics,
    maxBodyBytes: config.maxBodyBytes,
    webhook: (request, provider, channel) =>
      handleWebhook(
        request,
        provider,
        {
          secrets,
          deliveries,
          queue: guardedPushQueue,
          clock,
          logger,
          metrics,
          maxBodyBytes: config.maxBodyBytes,
          registryScope: config.registryScope,
          actions,
        },
        channel,
      ),
  };
}

export function createApiApp(config: Config, overrides: RuntimeOverrides = {}): ApiApp {
  const base = runtimeBase(config, overrides);
  const { logger, metrics } = base;
  const table = tableOf(config);
  const reader = dynamoRolloutReader(table);
  const findings = overrides.findings ?? dynamoFindingsReader(table);
  let fleet: FleetSource | undefined;
  const fleetOnce = () => {
    fleet ??= fleetSourceOf(base);
    return fleet;
  };
  let links: Promise<Readonly<Record<string, string>>> | undefined;
  const control = apiControl(base, table, reader, fleetOnce, fanoutQueueOf(base, table));
  let secrets: SecretReader | undefined;
  const access = uiAccess(config.uiAuth, {
    // Built on the first sign-in: a function without UI_AUTH=oidc never makes a Secrets Manager client.
    secrets: {
      getSecretString: (id) => {
        secrets ??= ownSecrets(base);
        return secrets.getSecretString(id);
      },
    },
    states: dynamoLoginStates(table),
    publicUrl: () => config.publicUrl ?? overrides.publicUrl?.(),
    logger,
  });
  return {
    logger,
    metrics,
    api: (request) =>
      handleApi(request, {
        rollouts: reader,
        index: dynamoRolloutIndex(table),
        argocdUrls: () => {
          links ??= argocdUrls(fleetOnce(), logger);
          return links;
        },
        findings,
        control,
        ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
        uiAccess: access,
        health: async () => ({ stage: config.stage }),
        logger,
      }),
  };
}

/** Release control for the API function: the stores on the table, the engine callbacks as overridden. */
/**
 * fanout, track and reconcile, built on their first call by `build` (each Lambda's own part, loaded then:
 * `runtime-fleet-apps.ts`) and again when the fleet source hands out a changed fleet: a cold start that
 * fails on the fleet fails the invocation loudly, and importing the bundle stays cheap. No `import()` of
 * the fleet code sits in this module: esbuild would wrap everything it reaches for lazy loading, in the
 * webhook and API bundles too, and wrapped modules are not tree-shaken.
 */
export function createFleetApp(config: Config, overrides: RuntimeOverrides, build: FleetBuilder): FleetApp {
  const base = runtimeBase(config, overrides);
  const { clock } = base;
  const table = tableOf(config);
  const payloads = dynamoPayloadStore(table, PAYLOAD_TTL_SECONDS);
  const secretsManager = createSecretsManagerApi({
    ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    ...(config.stsEndpoint === undefined ? {} : { stsEndpoint: config.stsEndpoint }),
    clock,
    http: httpOf(config),
  });
  const fleetSource = fleetSourceOf(base);
  const shared: SharedRuntime = {
    ...base,
    table,
    secretsManager,
    secretReader:
      overrides.secretReader ?? createSecretReader({ api: secretsManager, region: config.region, clock }),
    cachedSecrets: ownSecrets(base),
    pushQueue: queueOf<FanoutMessage>(base, overrides.pushQueue, config.queueUrl, payloads, 'QUEUE_URL'),
    // biome-ignore format: one line, so the IAM test reads which queue URL each queueOf call names
    trackQueue: queueOf<TrackMessage>(base, overrides.trackQueue, config.trackQueueUrl, payloads, 'TRACK_QUEUE_URL'),
    rollouts: dynamoRolloutWriter(table, RECORD_TTL_SECONDS),
    reader: dynamoRolloutReader(table),
    findings: dynamoFindingsStore(table),
    fleetSource,
  };
  // Rebuilt when the source hands out a new fleet (a changed FLEET_SOURCE), pinned to that fleet.
  let built: { fleet: FleetConfig; functions: Promise<Partial<FleetFunctions>> } | undefined;
  const fleet = async (): Promise<Partial<FleetFunctions>> => {
    const current = await fleetSource.current();
    if (built?.fleet !== current) {
      const pinned = { ...shared, fleetSource: fixedFleetSource(current, fleetSource.name) };
      built = { fleet: current, functions: build(pinned) };
    }
    return built.functions;
  };
  const part = async <K extends keyof FleetFunctions>(name: K): Promise<FleetFunctions[K]> => {
    const fn = (await fleet())[name];
    if (fn === undefined) throw new Error(`${name} is not built into this function`);
    return fn;
  };
  return {
    logger: base.logger,
    metrics: base.metrics,
    fleetReady: async () => {
      await fleet();
    },
    fanout: async (message, budget) => (await part('fanout'))(message, budget),
    track: async (message) => (await part('track'))(message),
    reconcile: async (options) => (await part('reconcile'))(options),
    resolveQueueBody: (body) => resolveQueueBody(body, payloads),
  };
}

/** The rollout page's Argo CD links, from the fleet (the page renders without links when it is unreadable). */
function argocdUrls(
  fleet: Pick<FleetSource, 'current'>,
  logger: Logger,
): Promise<Readonly<Record<string, string>>> {
  return fleet.current().then(
    (current) =>
      Object.fromEntries(current.clusters.flatMap((c) => (c.argocdUrl ? [[c.name, c.argocdUrl]] : []))),
    (error: unknown) => {
      logger.warn('fleet unreadable for page links', { error: errorMessage(error) });
      return {};
    },
  );
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** The fanout queue the release engine sends to, made on first use (reads need no QUEUE_URL). */
function fanoutQueueOf(base: RuntimeBase, table: TableRef): () => Queue<FanoutMessage> {
  const payloads = dynamoPayloadStore(table, PAYLOAD_TTL_SECONDS);
  return () =>
    queueOf<FanoutMessage>(base, base.overrides.pushQueue, base.config.queueUrl, payloads, 'QUEUE_URL');
}
