import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { App } from './app.js';
import { BadRequestError } from './errors.js';
import { fromApiGatewayEvent } from './http/request.js';
import { errorResponse, toLambdaResult } from './http/response.js';
import type { FanoutMessage, QueueMessage, TrackMessage } from './queue/messages.js';

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
export function queueHandler<M extends QueueMessage>(
  app: AppSource,
  types: readonly M['type'][],
  handle: (instance: App, message: M, budget: { deadlineMs: number }) => Promise<void>,
) {
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
    return processPartialResponse(
      event,
      async (record: SQSRecord) => {
        try {
          // A pointer to an offloaded payload is resolved first; a missing payload is retried, then dead-lettered.
          const body = (await instance.resolveQueueBody?.(record.body)) ?? record.body;
          await handle(instance, parseMessage(body, types) as M, budget);
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
  queueHandler<FanoutMessage>(app, ['push', 'cluster'], (instance, message, budget) =>
    instance.fanout(message, budget),
  );

export const trackHandler = (app: AppSource) =>
  queueHandler<TrackMessage>(app, ['track'], (instance, message) => instance.track(message));

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
