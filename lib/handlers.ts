import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  EventBridgeEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { ApiApp, App, WebhookApp } from './app.js';
import { BadRequestError } from './errors.js';
import { fromApiGatewayEvent } from './http/request.js';
import { errorResponse, toLambdaResult } from './http/response.js';
import type { FanoutMessage, QueueMessage, TrackMessage } from './queue/messages.js';
import { eventBridgeRequest, isEventBridgeEvent } from './webhook/eventbridge-event.js';

/**
 * Thin adapters from Lambda events to the App: decode, call, map. The Lambda functions and the local stack
 * use these same adapters, so both run the same code.
 */
export type AppSource<A = App> = () => Promise<A>;

export function webhookHandler(app: AppSource<WebhookApp>) {
  return async (
    event: APIGatewayProxyEventV2 | EventBridgeEvent<string, unknown>,
  ): Promise<APIGatewayProxyStructuredResultV2> => {
    const instance = await app();
    if (isEventBridgeEvent(event)) return registryEvent(instance, event);
    const http = event as APIGatewayProxyEventV2;
    try {
      const request = fromApiGatewayEvent(http, instance.maxBodyBytes);
      const provider = http.pathParameters?.provider ?? /^\/webhooks\/([^/]+)/.exec(http.rawPath)?.[1] ?? '';
      return toLambdaResult(await instance.webhook(request, provider));
    } catch (error) {
      return toLambdaResult(errorResponse(error, instance.logger));
    } finally {
      instance.metrics?.flush();
    }
  };
}

/**
 * An EventBridge rule's event (ECR image pushes): processed like `POST /webhooks/ecr` without a signature.
 * Our own failure (5xx) throws, so Lambda's asynchronous invocation retries it; a 4xx is logged and dropped.
 */
async function registryEvent(
  instance: WebhookApp,
  event: Readonly<Record<string, unknown>>,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    const { provider, request } = eventBridgeRequest(event);
    if (provider === undefined) {
      instance.logger.warn('eventbridge event from an unhandled source dropped', {
        source: String(event.source).slice(0, 60),
      });
      return { statusCode: 202, body: '{"ignored":"unhandled source"}' };
    }
    const response = toLambdaResult(await instance.webhook(request, provider, 'aws'));
    if ((response.statusCode ?? 500) >= 500) {
      throw new Error(`registry event not enqueued (status ${response.statusCode}); retried by Lambda`);
    }
    return response;
  } finally {
    instance.metrics?.flush();
  }
}

export function apiHandler(app: AppSource<ApiApp>) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const instance = await app();
    try {
      const response = await instance
        .api(fromApiGatewayEvent(event, 64 * 1024))
        .catch((error: unknown) => errorResponse(error, instance.logger));
      instance.metrics?.count('ApiRequests', 1, { status: String(response.statusCode) });
      return toLambdaResult(response);
    } finally {
      instance.metrics?.flush();
    }
  };
}

/** Time kept back from the Lambda's remaining time: records, retries and the answer to SQS fit in it. */
const RESERVE_MS = 20_000;
/** Without a Lambda context (the local stack): the fanout function's timeout. */
const DEFAULT_BUDGET_MS = 120_000;

/** When an invocation must stop starting new work. */
export function invocationDeadline(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): number {
  const remaining = context?.getRemainingTimeInMillis?.() ?? DEFAULT_BUDGET_MS;
  return Date.now() + Math.max(1_000, remaining - RESERVE_MS);
}

/** SQS consumer with partial batch failures per message (never failing a whole batch for one message). */
export function queueHandler<
  M extends QueueMessage,
  A extends Pick<App, 'logger' | 'metrics' | 'fleetReady' | 'resolveQueueBody'>,
>(
  app: AppSource<A>,
  types: readonly M['type'][],
  handle: (instance: A, message: M, budget: { deadlineMs: number }) => Promise<void>,
) {
  const queue = types.includes('track' as M['type']) ? 'track' : 'fanout';
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    const instance = await app();
    try {
      await instance.fleetReady?.();
    } catch (error) {
      // Every message would fail alike: fail the invocation so the batch is retried and Errors counts it.
      instance.logger.error('fleet unavailable: the batch goes back to the queue', {
        messages: event.Records.length,
        error: (error instanceof Error ? error.message : String(error)).split('\n')[0],
      });
      throw error;
    }
    const budget = { deadlineMs: invocationDeadline(context) };
    const processor = new BatchProcessor(EventType.SQS);
    try {
      return await processPartialResponse(
        event,
        async (record: SQSRecord) => {
          // Queue lag: sent → handled (for track it includes the poll delay the message asked for).
          const sent = Number(record.attributes.SentTimestamp);
          if (sent > 0) instance.metrics?.timing('QueueLag', Date.now() - sent, { queue });
          let message: M | undefined;
          try {
            // A pointer to an offloaded payload is resolved first; a missing payload is retried, then dead-lettered.
            const body = (await instance.resolveQueueBody?.(record.body)) ?? record.body;
            message = parseMessage(body, types) as M;
            await handle(instance, message, budget);
          } catch (error) {
            instance.metrics?.count('MessagesFailed', 1, { queue });
            instance.logger.error('message failed; it will be retried', {
              messageId: record.messageId,
              receiveCount: record.attributes.ApproximateReceiveCount,
              ...(message === undefined ? {} : messageKeys(message)),
              error: error instanceof Error ? error.message : String(error),
            });
            throw error;
          }
        },
        processor,
        { throwOnFullBatchFailure: false, processInParallel: true },
      );
    } finally {
      instance.metrics?.flush();
    }
  };
}

/** The keys that say which push, cluster or poll a log line is about. */
function messageKeys(message: QueueMessage): Record<string, unknown> {
  if (message.type === 'track') return { cluster: message.cluster, attempt: message.attempt };
  if (message.type === 'gate') return { sha: message.sha };
  if (message.type === 'unpin') return { repo: message.repo ?? '*' };
  const { event } = message;
  const base = { sha: event?.after, repo: event?.repo?.fullName, ref: event?.ref };
  return message.type === 'cluster' ? { ...base, cluster: message.cluster, attempt: message.attempt } : base;
}

export const fanoutHandler = (
  app: AppSource<Pick<App, 'logger' | 'metrics' | 'fleetReady' | 'resolveQueueBody' | 'fanout'>>,
) =>
  queueHandler<FanoutMessage, Pick<App, 'logger' | 'metrics' | 'fleetReady' | 'resolveQueueBody' | 'fanout'>>(
    app,
    ['push', 'cluster', 'gate', 'unpin'],
    (instance, message, budget) => instance.fanout(message, budget),
  );

export const trackHandler = (
  app: AppSource<Pick<App, 'logger' | 'metrics' | 'fleetReady' | 'resolveQueueBody' | 'track'>>,
) =>
  queueHandler<TrackMessage, Pick<App, 'logger' | 'metrics' | 'fleetReady' | 'resolveQueueBody' | 'track'>>(
    app,
    ['track'],
    (instance, message) => instance.track(message),
  );

function parseMessage(body: string, types: readonly QueueMessage['type'][]): QueueMessage {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    throw new BadRequestError('queue message is not JSON', { cause: error });
  }
  const type = (message as { type?: unknown } | null)?.type;
  if (!types.includes(type as QueueMessage['type'])) {
    throw new BadRequestError(`queue message is not a ${types.join(' or ')} message`);
  }
  return message as QueueMessage;
}
