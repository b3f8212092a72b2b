import { UpdateCommand } from './document-client.js';
import type { TableRef } from './dynamo.js';
import { rolloutPk, SUMMARY_SK } from './keys.js';

type Item = Record<string, unknown>;

/**
 * The newest summary item of each of the last few rollouts this container read or wrote, and one summary
 * write at a time per rollout: the polls of one SQS batch, mostly over the same rollout, then each start
 * from the item the write before returned instead of reading it again and racing each other's conditions.
 * A kept item may be stale (another container wrote since): every write made from it is conditional on the
 * versions it holds, and a failed condition reads the item again.
 */
/**
 * The clock of kept items and of the requests that return them: monotonic, below a millisecond, so a request
 * sent right after a `forget` reads as sent after it.
 */
export const summaryClock = (): number => performance.now();

export function latestSummaries(capacity = 16, now: () => number = summaryClock) {
  const items = new Map<string, { readonly item: Item; readonly at: number; readonly sentAt: number }>();
  const queues = new Map<string, Promise<unknown>>();
  const forgotten = new Map<string, number>();
  return {
    get: (sha: string) => items.get(sha)?.item,
    /**
     * The kept item if this container read or wrote it at most `maxAgeMs` ago, by a request sent after the
     * last write of the summary that bypassed the cache (`forget`) had ended: DynamoDB applies a write sent
     * after another one ended after it, so such an item holds that write's change. An earlier request's
     * answer may arrive later without it (release control's flags carry no version to tell).
     */
    fresh(sha: string, maxAgeMs: number): Item | undefined {
      const kept = items.get(sha);
      if (kept === undefined || now() - kept.at > maxAgeMs) return undefined;
      const forgot = forgotten.get(sha);
      return forgot === undefined || kept.sentAt > forgot ? kept.item : undefined;
    },
    /** A write of the summary made without returning it (release control, the deadline, refs): drop the copy. */
    forget(sha: string) {
      items.delete(sha);
      forgotten.delete(sha);
      forgotten.set(sha, now());
      if (forgotten.size > capacity) forgotten.delete(forgotten.keys().next().value as string);
    },
    /** `sentAt`: when the request that returned `item` was sent (unknown: never fresh after a `forget`). */
    set(sha: string, item: Item | undefined, sentAt = Number.NEGATIVE_INFINITY) {
      items.delete(sha);
      if (item === undefined) return;
      items.set(sha, { item, at: now(), sentAt });
      if (items.size > capacity) items.delete(items.keys().next().value as string);
    },
    /**
     * Keeps `item` (what a write returned) unless the kept one is newer: an answer that arrives after a
     * later write's (two work items of one batch) must not replace it. Both version counters only grow.
     */
    offer(sha: string, item: Item | undefined, sentAt?: number) {
      if (item === undefined) return;
      const kept = items.get(sha)?.item;
      const older = (field: string) => Number(item[field] ?? 0) < Number(kept?.[field] ?? 0);
      if (kept !== undefined && (older('viewsVersion') || older('errorsVersion'))) return;
      this.set(sha, item, sentAt);
    },
    /** Runs `work` after the rollout's writes already queued here. */
    oneAtATime<T>(sha: string, work: () => Promise<T>): Promise<T> {
      const before = queues.get(sha) ?? Promise.resolve();
      const run = before.then(work, work);
      const settled = run.then(
        () => undefined,
        () => undefined,
      );
      queues.set(sha, settled);
      void settled.then(() => {
        if (queues.get(sha) === settled) queues.delete(sha);
      });
      return run;
    },
  };
}

export type LatestSummaries = ReturnType<typeof latestSummaries>;

const byTable = new WeakMap<object, LatestSummaries>();

/**
 * The one kept-summary cache of a table's stores in this container (the summary's writers and the digest
 * share it, so a notice right after a write reads what the write returned).
 */
export function latestSummariesOf(table: object): LatestSummaries {
  let latest = byTable.get(table);
  if (latest === undefined) {
    latest = latestSummaries();
    byTable.set(table, latest);
  }
  return latest;
}

/** Runs a write of the summary item that does not return it, then drops this container's copy. */
export async function bypassingCopy<T>(table: object, sha: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    latestSummariesOf(table).forget(sha);
  }
}

/**
 * An update of a rollout's summary item that does not return it (release control, the deadline, refs,
 * planned clusters, decision counts): sent, then this container's copy is dropped, whatever the answer.
 */
export function updateSummary(
  table: TableRef,
  sha: string,
  params: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>,
) {
  return bypassingCopy(table, sha, () =>
    table.doc.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
        ...params,
      }),
    ),
  );
}
