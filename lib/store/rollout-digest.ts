import type { AppRecord } from '../rollouts/app-model.js';
import type { RolloutDigestReader } from '../rollouts/rollout-digest.js';
import type { StateCounts } from '../rollouts/state-model.js';
import type { TableRef } from './dynamo.js';
import { GSI2, GSI3 } from './keys.js';
import {
  countOfIndex,
  firstOfIndex,
  PROBLEM_STATES,
  problemAppsOfCluster,
  problemsPk,
  warnedPk,
} from './problem-apps.js';
import { appFromItem, summaryFromItem } from './rollout-items.js';
import { getSummaryItem } from './rollout-summary.js';
import { latestSummariesOf } from './summary-latest.js';
import { type ClusterView, waveViews } from './summary-views.js';

type Item = Record<string, unknown>;

/**
 * A summary this container wrote (or read) at most this long ago is the digest's: the notices of a change
 * run right after its summary write, which returned the item as written. Older, it is read again.
 */
const FRESH_MS = 1_000;

const problemsIn = (counts: StateCounts) => PROBLEM_STATES.reduce((sum, s) => sum + (counts[s] ?? 0), 0);

/**
 * The digest of a rollout in at most four requests, whatever its size: the summary item (one strongly
 * consistent read, or the item this container's own write returned a moment ago), the first `limit`
 * problem apps and the first `limit` warned apps (the sparse indexes of lib/store/problem-apps.ts), and a count of the warned apps only when there are more. The indexes are
 * updated after the app's write, so when they show fewer problem apps than the views count (a write a
 * moment ago), the clusters short of theirs are read from the table, consistently: rare, and bounded by
 * those clusters.
 */
export function dynamoRolloutDigest(table: TableRef): RolloutDigestReader {
  const latest = latestSummariesOf(table);
  return {
    async digest(sha, limit, options = {}) {
      const kept = options.reread === true ? undefined : latest.fresh(sha, FRESH_MS);
      const item = kept ?? (await getSummaryItem(table, sha));
      if (item === undefined) return undefined;
      const views = (item.views ?? {}) as Record<string, ClusterView>;
      const clusters = Object.fromEntries(Object.entries(views).map(([name, view]) => [name, view.c]));
      const destinations: Record<string, Record<string, number>> = {};
      for (const [name, view] of Object.entries(views)) {
        for (const [destination, counts] of Object.entries(view.d ?? { [name]: view.c })) {
          const into = destinations[destination] ?? {};
          destinations[destination] = into;
          for (const [state, n] of Object.entries(counts)) into[state] = (into[state] ?? 0) + (n ?? 0);
        }
      }
      const waves = Object.fromEntries(Object.entries(waveViews(item)).map(([name, view]) => [name, view.c]));
      // No apps asked for (a commit status counts only): the summary item alone.
      const none = { items: [] as Item[], more: false };
      const [problems, warned] =
        limit <= 0
          ? [none, none]
          : await Promise.all([
              firstOfIndex(table, GSI2, problemsPk(sha), limit),
              firstOfIndex(table, GSI3, warnedPk(sha), limit),
            ]);
      const expected = Object.values(clusters).reduce((sum, counts) => sum + problemsIn(counts), 0);
      const listed =
        limit > 0 && problems.items.length < Math.min(limit, expected)
          ? await withLagging(table, sha, problems.items, clusters, limit)
          : problems.items;
      return {
        summary: summaryFromItem(item),
        clusters,
        destinations,
        waves,
        problems: listed.map(appFromItem),
        warned: warned.items.map(appFromItem) as AppRecord[],
        warnedCount: warned.more ? await countOfIndex(table, GSI3, warnedPk(sha)) : warned.items.length,
      };
    },
  };
}

/** The index's problem apps and, for each cluster it shows fewer of than its view counts, the table's. */
async function withLagging(
  table: TableRef,
  sha: string,
  indexed: readonly Item[],
  clusters: Readonly<Record<string, StateCounts>>,
  limit: number,
): Promise<Item[]> {
  const seen = new Map<string, number>();
  for (const item of indexed) seen.set(String(item.cluster), (seen.get(String(item.cluster)) ?? 0) + 1);
  const short = Object.entries(clusters)
    .filter(([name, counts]) => (seen.get(name) ?? 0) < problemsIn(counts))
    .map(([name]) => name);
  const read = (await Promise.all(short.map((name) => problemAppsOfCluster(table, sha, name)))).flat();
  const bySk = new Map<string, Item>();
  for (const item of [...indexed, ...read]) bySk.set(String(item.sk), item);
  const order = (item: Item) => PROBLEM_STATES.indexOf(item.state as (typeof PROBLEM_STATES)[number]);
  return [...bySk.values()]
    .sort((a, b) => order(a) - order(b) || String(a.sk).localeCompare(String(b.sk)))
    .slice(0, limit);
}
