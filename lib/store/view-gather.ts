/**
 * The polls of one SQS batch, a cluster each, write their views of a rollout's summary together: each
 * update is billed at the whole summary's size, which grows with the clusters. A poll says it may write a
 * view (`expect`) and when it no longer may; a view handed in (`submit`) waits while any such poll has not
 * written or given up, at most `maxWaitMs`, and the gathered views go in one write (at most `maxPerWrite`),
 * after the rollout's writes already queued in this container (`oneAtATime`). A view the write cannot take
 * (a cluster's second one, or a combined write that was refused or failed) is written alone afterwards, so
 * no view's outcome depends on another's. Pure: the write itself is the caller's.
 */

export interface GatheredView<V> {
  readonly cluster: string;
  readonly view: V;
}

export interface ViewGatherOptions<V, R> {
  /** Writes the views in one update: undefined when it could not take them (the caller's two-write way). */
  readonly write: (sha: string, views: readonly GatheredView<V>[]) => Promise<R | undefined>;
  /** Runs `work` after the rollout's writes already queued in this container. */
  readonly oneAtATime: (sha: string, work: () => Promise<void>) => Promise<void>;
  /** A view's version: of two views of one cluster the newer goes in the write. */
  readonly version: (view: V) => number;
  readonly maxPerWrite: number;
  readonly maxWaitMs: number;
}

interface Waiting<V, R> extends GatheredView<V> {
  readonly resolve: (result: R | undefined) => void;
  readonly reject: (error: unknown) => void;
}

export function viewGather<V, R>(options: ViewGatherOptions<V, R>) {
  /** Polls that said they may write a view of the rollout and have not yet. */
  const expected = new Map<string, Set<string>>();
  /** Views handed in while such a poll might still write. */
  const gathers = new Map<string, { entries: Waiting<V, R>[]; timer: ReturnType<typeof setTimeout> }>();
  /** The rollout's next write, not yet started: views flushed meanwhile join it. */
  const pending = new Map<string, Waiting<V, R>[]>();

  const flushIfReady = (sha: string) => {
    const gather = gathers.get(sha);
    if (gather === undefined) return;
    if ((expected.get(sha)?.size ?? 0) === 0 || gather.entries.length >= options.maxPerWrite) flush(sha);
  };

  const flush = (sha: string) => {
    const gather = gathers.get(sha);
    if (gather === undefined) return;
    gathers.delete(sha);
    clearTimeout(gather.timer);
    for (const entry of gather.entries) enqueue(sha, entry);
  };

  const enqueue = (sha: string, entry: Waiting<V, R>) => {
    const waiting = pending.get(sha);
    if (waiting !== undefined && waiting.length < options.maxPerWrite) {
      waiting.push(entry);
      return;
    }
    const mine = [entry];
    pending.set(sha, mine);
    void options.oneAtATime(sha, async () => {
      if (pending.get(sha) === mine) pending.delete(sha);
      await writeTogether(sha, mine);
    });
  };

  const writeTogether = async (sha: string, entries: readonly Waiting<V, R>[]) => {
    const first = new Map<string, Waiting<V, R>>();
    const after: Waiting<V, R>[] = [];
    for (const entry of entries) {
      const seen = first.get(entry.cluster);
      if (seen === undefined) first.set(entry.cluster, entry);
      else if (options.version(entry.view) > options.version(seen.view)) {
        after.push(seen);
        first.set(entry.cluster, entry);
      } else after.push(entry);
    }
    const together = [...first.values()];
    try {
      const result = await options.write(sha, together);
      if (result !== undefined || together.length === 1) {
        for (const entry of together) entry.resolve(result);
      } else after.unshift(...together);
    } catch (error) {
      if (together.length === 1) together[0]?.reject(error);
      else after.unshift(...together);
    }
    for (const entry of after) await options.write(sha, [entry]).then(entry.resolve, entry.reject);
  };

  return {
    /** A poll of `cluster` may write the rollout's view; the function returned says it no longer may. */
    expect(sha: string, cluster: string): () => void {
      let clusters = expected.get(sha);
      if (clusters === undefined) {
        clusters = new Set();
        expected.set(sha, clusters);
      }
      clusters.add(cluster);
      return () => {
        const now = expected.get(sha);
        if (now === undefined) return;
        now.delete(cluster);
        if (now.size === 0) expected.delete(sha);
        flushIfReady(sha);
      };
    },

    /** The view, written with the others gathered; what that write returned. */
    submit(sha: string, cluster: string, view: V): Promise<R | undefined> {
      return new Promise<R | undefined>((resolve, reject) => {
        expected.get(sha)?.delete(cluster);
        let gather = gathers.get(sha);
        if (gather === undefined) {
          gather = { entries: [], timer: setTimeout(() => flush(sha), options.maxWaitMs) };
          gather.timer.unref?.();
          gathers.set(sha, gather);
        }
        gather.entries.push({ cluster, view, resolve, reject });
        flushIfReady(sha);
      });
    },
  };
}
