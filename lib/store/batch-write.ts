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
  const settled = await mapWithConcurrency(chunks, options.concurrency ?? 4, (chunk) =>
    batchWriteOne(table, chunk, options),
  );
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/**
 * One BatchWriteItem call of at most 25 requests, sent again while items come back unprocessed (backoff
 * and full jitter, bounded tries), until none are left, or until `handBack(left)` says the caller takes
 * what is left: those are returned unsent.
 */
export async function batchWriteOne(
  table: TableRef,
  requests: readonly WriteRequest[],
  options: BatchWriteOptions = {},
  handBack: (left: readonly WriteRequest[]) => boolean = () => false,
): Promise<readonly WriteRequest[]> {
  const attempts = Math.max(1, options.attempts ?? 8);
  const base = options.baseDelayMs ?? 50;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let pending: readonly WriteRequest[] = requests;
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > 1) await sleep(Math.floor(Math.random() * Math.min(2000, base * 2 ** (attempt - 2))));
    const result = await table.doc.send(
      new BatchWriteCommand({ RequestItems: { [table.tableName]: [...pending] } }),
    );
    pending = result.UnprocessedItems?.[table.tableName] ?? [];
    if (pending.length > 0 && handBack(pending)) return pending;
    if (pending.length > 0 && attempt >= attempts) {
      throw new UpstreamError(`dynamodb left ${pending.length} item(s) unprocessed after ${attempts} tries`, {
        retryable: true,
        code: 'dynamodb-unprocessed',
      });
    }
  }
  return [];
}
