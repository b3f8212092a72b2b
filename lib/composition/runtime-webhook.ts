import type { WebhookApp } from '../app.js';
import { WEBHOOK_AWS } from '../aws/http-handler.js';
import { checkRunActions } from '../check-run/retry-action.js';
import type { Config } from '../config.js';
import type { Queue } from '../ports.js';
import type { FanoutMessage } from '../queue/messages.js';
import { dynamoDeliveryStore } from '../store/deliveries.js';
import { dynamoPayloadStore } from '../store/payloads.js';
import { dynamoRolloutReader } from '../store/rollout-items.js';
import { handleWebhook } from '../webhook/handle-webhook.js';
import { webhookSecretSource } from '../webhook/secret-source.js';
import {
  fanoutQueueOf,
  fleetSourceOf,
  ownSecrets,
  PAYLOAD_TTL_SECONDS,
  queueOf,
  runtimeBase,
  tableOf,
} from './runtime-adapters.js';
import { releaseControl } from './runtime-control.js';
import type { RuntimeOverrides } from './runtime-model.js';

/**
 * The webhook function. One builder per function, each in its own file, so each Lambda bundle holds only
 * what its function imports (`functions/<name>.ts` calls one builder: this one, `runtime-api.ts`, or the
 * fleet ones in `runtime-fleet-apps.ts`); `createRuntime` (`runtime-local.ts`) composes all five for the
 * local stack.
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

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
