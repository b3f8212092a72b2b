import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { ApiApp, App, WebhookApp } from './app.js';
import { BadRequestError } from './errors.js';
import { fromApiGatewayEvent } from './http/request.js';
import { errorResponse, toLambdaResult } from './http/response.js';
import type { PushMessage, QueueMessage, TrackMessage } from './queue/messages.js';

/**
 * Thin adapters from Lambda events to the App: decode, call, map. The Lambda functions and the local stack
 * use these same adapters, so both run the same code.
 */
export type AppSource<A = App> = () => Promise<A>;

export function webhookHandler(app: AppSource<WebhookApp>) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const instance = await app();
    try {
      const request = fromApiGatewayEvent(event, instance.maxBodyBytes);
      const provider =
        event.pathParameters?.provider ?? /^\/webhooks\/([^/]+)/.exec(event.rawPath)?.[1] ?? '';
      return toLambdaResult(await instance.webhook(request, provider));
    } catch (error) {
      return toLambdaResult(errorResponse(error, instance.logger));
    } finally {
      instance.metrics?.flush();
    }
  };
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

/** SQS consumer with partial batch failures per message (never failing a whole batch for one message). */
export function queueHandler<M extends QueueMessage, A extends Pick<App, 'logger' | 'metrics'>>(
  app: AppSource<A>,
  type: M['type'],
  handle: (instance: A, message: M) => Promise<void>,
) {
  const queue = type === 'push' ? 'fanout' : 'track';
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const instance = await app();
    const processor = new BatchProcessor(EventType.SQS);
    try {
      return await processPartialResponse(
        event,
        async (record: SQSRecord) => {
          // Queue lag: sent → handled (for track it includes the poll delay the message asked for).
          const sent = Number(record.attributes.SentTimestamp);
          if (sent > 0) instance.metrics?.timing('QueueLag', Date.now() - sent, { queue });
          const message = parseMessage(record.body, type) as M;
          try {
            await handle(instance, message);
          } catch (error) {
            instance.metrics?.count('MessagesFailed', 1, { queue });
            instance.logger.error('message failed; it will be retried', {
              messageId: record.messageId,
              receiveCount: record.attributes.ApproximateReceiveCount,
              ...messageKeys(message),
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

/** The keys that say which push or rollout a log line is about. */
function messageKeys(message: QueueMessage): Record<string, unknown> {
  if (message.type === 'track') return { sha: message.sha, attempt: message.attempt };
  const { event } = message;
  return { sha: event?.after, repo: event?.repo?.fullName, ref: event?.ref };
}

export const fanoutHandler = (app: AppSource<Pick<App, 'logger' | 'metrics' | 'fanout'>>) =>
  queueHandler<PushMessage, Pick<App, 'logger' | 'metrics' | 'fanout'>>(app, 'push', (instance, message) =>
    instance.fanout(message),
  );

export const trackHandler = (app: AppSource<Pick<App, 'logger' | 'metrics' | 'track'>>) =>
  queueHandler<TrackMessage, Pick<App, 'logger' | 'metrics' | 'track'>>(app, 'track', (instance, message) =>
    instance.track(message),
  );

function parseMessage(body: string, type: QueueMessage['type']): QueueMessage {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    throw new BadRequestError('queue message is not JSON', { cause: error });
  }
  if ((message as { type?: unknown } | null)?.type !== type) {
    throw new BadRequestError(`queue message is not a ${type} message`);
  }
  return message as QueueMessage;
}
