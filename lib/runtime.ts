import { SQSClient } from '@aws-sdk/client-sqs';
import type { FindingsReader } from './api/findings-reader.js';
import { handleApi } from './api/handle-api.js';
import type { App } from './app.js';
import { createFleetTextReader } from './aws/fleet-text.js';
import { awsRequestHandler } from './aws/http-handler.js';
import { createSecretReader } from './aws/secret-reader.js';
import { createSecretsManagerApi } from './aws/secrets-manager.js';
import type { Config } from './config.js';
import { ConfigError, errorMessage } from './errors.js';
import type { FleetConfig } from './fleet/fleet-config.js';
import { createFleetSource, type FleetSource, fixedFleetSource } from './fleet/fleet-source.js';
import type { FleetMode } from './fleet/yaml-reader.js';
import { createLogger } from './logger.js';
import { type Clock, type Logger, type Queue, type SecretReader, systemClock } from './ports.js';
import type { FanoutMessage, PointerMessage, TrackMessage } from './queue/messages.js';
import { offloadQueue, resolveQueueBody } from './queue/offload-queue.js';
import { sqsQueue } from './queue/sqs-queue.js';
import type { RolloutReader } from './rollouts/rollout-store.js';
import type { FleetFunctions } from './runtime-fleet.js';
import type { SecretsManagerApi } from './secrets/secrets-manager-api.js';
import { dynamoDeliveryStore } from './store/deliveries.js';
import { createTableRef, type TableRef } from './store/dynamo.js';
import { dynamoFindingsStore } from './store/findings.js';
import { dynamoPayloadStore } from './store/payloads.js';
import { dynamoRolloutIndex } from './store/rollout-index.js';
import { dynamoRolloutReader } from './store/rollout-items.js';
import { type DynamoRolloutWriter, dynamoRolloutWriter } from './store/rollouts.js';
import { handleWebhook } from './webhook/handle-webhook.js';
import { webhookSecretSource } from './webhook/secret-source.js';

/** What the local stack and tests swap in; everything else is built from the config. */
export interface RuntimeOverrides {
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Raw queues (the in-process ones); the runtime wraps them as it wraps SQS (offloading, delays). */
  readonly pushQueue?: Queue<FanoutMessage | PointerMessage>;
  readonly trackQueue?: Queue<TrackMessage | PointerMessage>;
  /** The fleet itself (the local simulator), instead of reading FLEET_CONFIG. */
  readonly fleet?: FleetConfig;
  /** Which fleet-file rules apply (default `deployed`; the local stack passes `local`). */
  readonly fleetMode?: FleetMode;
  readonly secretReader?: SecretReader;
  readonly findings?: FindingsReader;
  /** Where fetched Git commits are kept (default: the OS temp dir, `/tmp` in Lambda). */
  readonly gitCacheDir?: string;
  /** Where people reach the pages, when only known after start (the local stack's port); PUBLIC_URL wins. */
  readonly publicUrl?: () => string | undefined;
}

const RECORD_TTL_SECONDS = 90 * 24 * 3600;
/** Outlives a message on any queue: 4 days' retention, then up to 14 days in a dead-letter queue. */
const PAYLOAD_TTL_SECONDS = 15 * 24 * 3600;

/** What every function shares, built once per cold start; the fleet functions build the rest on first use. */
export interface SharedRuntime {
  readonly config: Config;
  readonly overrides: RuntimeOverrides;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly table: TableRef;
  readonly secretsManager: SecretsManagerApi;
  readonly secretReader: SecretReader;
  readonly pushQueue: Queue<FanoutMessage>;
  readonly trackQueue: Queue<TrackMessage>;
  readonly rollouts: DynamoRolloutWriter;
  readonly reader: RolloutReader;
  readonly findings: ReturnType<typeof dynamoFindingsStore>;
  /** The validated fleet (FLEET_SOURCE, FLEET_CONFIG or the override), cached and re-read on its TTL. */
  readonly fleetSource: FleetSource;
}

/**
 * The composition root: builds every adapter once (per cold start) from the validated config and hands
 * small ports to the domain. The fleet functions (`runtime-fleet.ts`) are imported and built on their first
 * call, so the webhook and API functions never load or pay for them.
 */
export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): App {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const clock = overrides.clock ?? systemClock;
  const http = { requestTimeoutMs: config.awsRequestTimeoutMs };
  const table = createTableRef({
    tableName: config.tableName,
    region: config.region,
    http,
    ...(config.dynamodbEndpoint === undefined ? {} : { endpoint: config.dynamodbEndpoint }),
  });
  const secretsManager = createSecretsManagerApi({
    ...(config.secretsManagerEndpoint === undefined ? {} : { endpoint: config.secretsManagerEndpoint }),
    ...(config.stsEndpoint === undefined ? {} : { stsEndpoint: config.stsEndpoint }),
    clock,
    http,
  });
  const secretReader =
    overrides.secretReader ?? createSecretReader({ api: secretsManager, region: config.region, clock });
  const sqs =
    config.queueUrl === undefined
      ? undefined
      : new SQSClient({
          region: config.region,
          requestHandler: awsRequestHandler(http),
          ...(config.sqsEndpoint === undefined ? {} : { endpoint: config.sqsEndpoint }),
        });
  const payloads = dynamoPayloadStore(table, PAYLOAD_TTL_SECONDS);
  const queue = <M extends { readonly type: string }>(
    override: Queue<M | PointerMessage> | undefined,
    url: string | undefined,
    name: string,
  ): Queue<M> => {
    if (override !== undefined) return offloadQueue(override, payloads);
    if (sqs === undefined || url === undefined)
      throw new ConfigError(name, 'is required outside the local stack');
    return offloadQueue(sqsQueue<M | PointerMessage>(sqs, url), payloads);
  };
  const pushQueue = queue<FanoutMessage>(overrides.pushQueue, config.queueUrl, 'QUEUE_URL');
  const trackQueue = queue<TrackMessage>(overrides.trackQueue, config.trackQueueUrl, 'TRACK_QUEUE_URL');
  const rollouts = dynamoRolloutWriter(table, RECORD_TTL_SECONDS);
  const reader = dynamoRolloutReader(table);
  const findings = dynamoFindingsStore(table);
  const deliveries = dynamoDeliveryStore(table, config.deliveryTtlSeconds);
  const webhookSecrets = webhookSecretSource(config, secretReader);
  const fleetSource =
    overrides.fleet === undefined
      ? createFleetSource(config, {
          clock,
          logger,
          mode: overrides.fleetMode ?? 'deployed',
          readRemote: createFleetTextReader({
            region: config.region,
            ...(config.ssmEndpoint === undefined ? {} : { ssmEndpoint: config.ssmEndpoint }),
            ...(config.s3Endpoint === undefined ? {} : { s3Endpoint: config.s3Endpoint }),
          }),
        })
      : fixedFleetSource(overrides.fleet);
  const shared: SharedRuntime = {
    config,
    overrides,
    logger,
    clock,
    table,
    secretsManager,
    secretReader,
    pushQueue,
    trackQueue,
    rollouts,
    reader,
    findings,
    fleetSource,
  };
  let links: Promise<Readonly<Record<string, string>>> | undefined;
  // Rebuilt when the source hands out a new fleet (a changed FLEET_SOURCE), pinned to that fleet.
  let built: { fleet: FleetConfig; functions: Promise<FleetFunctions> } | undefined;
  const fleet = async (): Promise<FleetFunctions> => {
    const current = await fleetSource.current();
    if (built?.fleet !== current) {
      const pinned = { ...shared, fleetSource: fixedFleetSource(current, fleetSource.name) };
      built = {
        fleet: current,
        functions: import('./runtime-fleet.js').then((m) => m.createFleetFunctions(pinned)),
      };
    }
    return built.functions;
  };
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

  return {
    logger,
    maxBodyBytes: config.maxBodyBytes,
    webhook: (request, provider) =>
      handleWebhook(request, provider, {
        secrets: webhookSecrets,
        deliveries,
        queue: guardedPushQueue,
        clock,
        logger,
        maxBodyBytes: config.maxBodyBytes,
      }),
    api: (request) =>
      handleApi(request, {
        rollouts: reader,
        index: dynamoRolloutIndex(table),
        argocdUrls: () => {
          links ??= argocdUrls(fleetSource, logger);
          return links;
        },
        findings: overrides.findings ?? findings,
        ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
        health: async () => ({ stage: config.stage }),
        logger,
      }),
    fleetReady: async () => {
      await fleet();
    },
    fanout: async (message, budget) => (await fleet()).fanout(message, budget),
    track: async (message) => (await fleet()).track(message),
    reconcile: async (options) => (await fleet()).reconcile(options),
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
