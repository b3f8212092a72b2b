import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { App } from './app.js';
import { BadRequestError } from './errors.js';
import { fromApiGatewayEvent } from './http/request.js';
import { errorResponse, toLambdaResult } from './http/response.js';
import type { PushMessage, QueueMessage, TrackMessage } from './queue/messages.js';

/**
 * Thin adapters from Lambda events to the App: decode, call, map. The Lambda functions and the local stack
 * use these same adapters, so both run the same code.
 */
export type AppSource = () => Promise<App>;

export function webhookHandler(app: AppSource) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const instance = await app();
    try {
      const request = fromApiGatewayEvent(event, instance.maxBodyBytes);
      const provider =
        event.pathParameters?.provider ?? /^\/webhooks\/([^/]+)/.exec(event.rawPath)?.[1] ?? '';
      return toLambdaResult(await instance.webhook(request, provider));
    } catch (error) {
      return toLambdaResult(errorResponse(error, instance.logger));
    }
  };
}

export function apiHandler(app: AppSource) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const instance = await app();
    try {
      return toLambdaResult(await instance.api(fromApiGatewayEvent(event, 64 * 1024)));
    } catch (error) {
      return toLambdaResult(errorResponse(error, instance.logger));
    }
  };
}

/** SQS consumer with partial batch failures per message (never failing a whole batch for one message). */
export function queueHandler<M extends QueueMessage>(
  app: AppSource,
  type: M['type'],
  handle: (instance: App, message: M) => Promise<void>,
) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
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
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(
      event,
      async (record: SQSRecord) => {
        const message = parseMessage(record.body, type) as M;
        try {
          await handle(instance, message);
        } catch (error) {
          instance.logger.error('message failed; it will be retried', {
            messageId: record.messageId,
            receiveCount: record.attributes.ApproximateReceiveCount,
            error: error instanceof Error ? error.message : String(error),
          });
          throw error;
        }
      },
      processor,
      { throwOnFullBatchFailure: false, processInParallel: true },
    );
  };
}

export const fanoutHandler = (app: AppSource) =>
  queueHandler<PushMessage>(app, 'push', (instance, message) => instance.fanout(message));

export const trackHandler = (app: AppSource) =>
  queueHandler<TrackMessage>(app, 'track', (instance, message) => instance.track(message));

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
