type Item = Record<string, unknown>;

/**
 * The newest summary item of each of the last few rollouts this container read or wrote, and one summary
 * write at a time per rollout: the polls of one SQS batch, mostly over the same rollout, then each start
 * from the item the write before returned instead of reading it again and racing each other's conditions.
 * A kept item may be stale (another container wrote since): every write made from it is conditional on the
 * versions it holds, and a failed condition reads the item again.
 */
export function latestSummaries(capacity = 16) {
  const items = new Map<string, Item>();
  const queues = new Map<string, Promise<unknown>>();
  return {
    get: (sha: string) => items.get(sha),
    set(sha: string, item: Item | undefined) {
      items.delete(sha);
      if (item === undefined) return;
      items.set(sha, item);
      if (items.size > capacity) items.delete(items.keys().next().value as string);
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
