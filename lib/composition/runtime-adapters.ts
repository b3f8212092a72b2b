import { SQSClient } from '@aws-sdk/client-sqs';
import { createCachedSecretReader } from '../aws/cached-secrets.js';
import { createFleetTextReader } from '../aws/fleet-text.js';
import { awsRequestHandler } from '../aws/http-handler.js';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import { createFleetSource, type FleetSource, fixedFleetSource } from '../fleet/fleet-source.js';
import { createLogger } from '../logger.js';
import { createEmfMetrics } from '../observability/emf-metrics.js';
import { type PayloadStore, type Queue, type SecretReader, systemClock } from '../ports.js';
import type { FanoutMessage, PointerMessage } from '../queue/messages.js';
import { offloadQueue } from '../queue/offload-queue.js';
import { sqsQueue } from '../queue/sqs-queue.js';
import { createTableRef, type TableRef } from '../store/dynamo.js';
import { dynamoPayloadStore } from '../store/payloads.js';
import type { RuntimeBase, RuntimeOverrides } from './runtime-model.js';

/*
 * The adapters every composition root builds the same way: the table, the queues (offloading large
 * messages to the payload store), the orchestrator's own secrets and the fleet source.
 */

export const RECORD_TTL_SECONDS = 90 * 24 * 3600;
/** Outlives a message on any queue: 4 days' retention, then up to 14 days in a dead-letter queue. */
export const PAYLOAD_TTL_SECONDS = 15 * 24 * 3600;

export function runtimeBase(config: Config, overrides: RuntimeOverrides = {}): RuntimeBase {
  return {
    config,
    overrides,
    logger: overrides.logger ?? createLogger({ level: config.logLevel }),
    metrics: overrides.metrics ?? createEmfMetrics({ service: 'gitops-sync' }),
    clock: overrides.clock ?? systemClock,
  };
}

/** The AWS SDK's HTTP timeouts from the config. */
export const httpOf = (config: Config) => ({
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

/** The fanout queue the release engine sends to, made on first use (reads need no QUEUE_URL). */
export function fanoutQueueOf(base: RuntimeBase, table: TableRef): () => Queue<FanoutMessage> {
  const payloads = dynamoPayloadStore(table, PAYLOAD_TTL_SECONDS);
  return () =>
    queueOf<FanoutMessage>(base, base.overrides.pushQueue, base.config.queueUrl, payloads, 'QUEUE_URL');
}
