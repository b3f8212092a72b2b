import { mapWithConcurrency } from '../concurrency.js';
import { UpstreamError } from '../errors.js';
import { BatchWriteCommand } from './document-client.js';
import type { TableRef } from './dynamo.js';

export interface BatchWriteOptions {
  /** Calls in flight at once (default 4). */
  readonly concurrency?: number;
  /** Tries per batch while DynamoDB hands items back unprocessed (default 8). */
  readonly attempts?: number;
  readonly baseDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

type WriteRequest = NonNullable<
  ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']
>[string][number];

/** BatchWriteItem's limit of requests per call. */
export const BATCH_SIZE = 25;

/**
 * BatchWriteItem in calls of 25 (the API's limit), a few at once; unprocessed items (throttling) are sent
 * again with exponential backoff and full jitter, a bounded number of times.
 */
export async function batchWriteAll(
  table: TableRef,
  requests: readonly WriteRequest[],
  options: BatchWriteOptions = {},
): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH_SIZE) chunks.push(requests.slice(i, i + BATCH_SIZE));
  const attempts = Math.max(1, options.attempts ?? 8);
  const base = options.baseDelayMs ?? 50;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const settled = await mapWithConcurrency(chunks, options.concurrency ?? 4, async (chunk) => {
    let pending: WriteRequest[] = chunk;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await sleep(Math.floor(Math.random() * Math.min(2000, base * 2 ** (attempt - 2))));
      const result = await table.doc.send(
        new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }),
      );
      pending = result.UnprocessedItems?.[table.tableName] ?? [];
      if (pending.length > 0 && attempt >= attempts) {
        throw new UpstreamError(
          `dynamodb left ${pending.length} item(s) unprocessed after ${attempts} tries`,
          {
            retryable: true,
            code: 'dynamodb-unprocessed',
          },
        );
      }
    }
  });
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
