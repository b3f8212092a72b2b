import { type AppState, isTerminal, type StateCounts } from '../rollouts/state-model.js';
import { STATE_EMOJI } from './app-lines.js';
import { code, safeText } from './mrkdwn.js';
import { STATE_ORDER } from './notice-plan.js';
import { appTotal, clusterCounts } from './tally.js';
import type { RolloutSnapshot } from './types.js';

/** Clusters given a progress line each; the rest are summed up in one. */
export const MAX_CLUSTER_LINES = 12;

/** `main`, or `main · tag v1.4.2` when a tag (or another branch) arrived on the same commit. */
export function refsLabel(snapshot: RolloutSnapshot): string {
  const refs = [...new Set([snapshot.ref, ...(snapshot.refs ?? [])])];
  return refs
    .map((ref) => {
      const tag = /^refs\/tags\/(.+)$/.exec(ref)?.[1];
      const name = tag ?? ref.replace(/^refs\/heads\//, '');
      return `${tag === undefined ? '' : 'tag '}${code(safeText(name, 100))}`;
    })
    .join(' · ');
}

/**
 * Elapsed time and deadline: `started 10:00 UTC · 3 min elapsed · deadline 10:10 UTC` while it runs
 * (whole minutes, so the message changes at most once a minute), `took 2 min 14 s` once it ended.
 */
export function timingLine(snapshot: RolloutSnapshot, ended: boolean): string | undefined {
  const start = parse(snapshot.receivedAt);
  if (start === undefined) return undefined;
  if (ended) {
    const end = parse(snapshot.finishedAt) ?? parse(snapshot.renderedAt);
    return end === undefined ? undefined : `:stopwatch: took ${duration(end - start)}`;
  }
  const parts = [`started ${clock(start)}`];
  const now = parse(snapshot.renderedAt);
  if (now !== undefined) parts.push(`${Math.max(0, Math.floor((now - start) / 60_000))} min elapsed`);
  const deadline = parse(snapshot.deadline);
  if (deadline !== undefined) parts.push(`deadline ${clock(deadline)}`);
  return `:stopwatch: ${parts.join(' · ')}`;
}

/**
 * One line per destination cluster (the fleet cluster an app deploys to, else the cluster holding it; per
 * cluster holding the apps when counted from the summary's views): `spoke-a 4/6 done · ✅ 3 · ❌ 1 · ⏳ 2`.
 * Bounded whatever the fleet size.
 */
export function clusterLines(snapshot: RolloutSnapshot): string[] {
  const byCluster = clusterCounts(snapshot);
  const clusters = [...byCluster.keys()].sort();
  const done = (counts: StateCounts) =>
    Object.entries(counts).reduce((n, [state, c]) => (isTerminal(state as AppState) ? n + (c ?? 0) : n), 0);
  const lines = clusters.slice(0, MAX_CLUSTER_LINES).map((cluster) => {
    const group = byCluster.get(cluster) ?? {};
    const counts = STATE_ORDER.flatMap((state) => {
      const n = group[state] ?? 0;
      return n === 0 ? [] : [`${STATE_EMOJI[state]} ${n}`];
    });
    return `${code(safeText(cluster, 63))} ${done(group)}/${appTotal(group)} done · ${counts.join(' · ')}`;
  });
  const rest = clusters.slice(MAX_CLUSTER_LINES);
  if (rest.length > 0) {
    const restCounts = rest.map((c) => byCluster.get(c) ?? {});
    const finished = restCounts.reduce((n, counts) => n + done(counts), 0);
    const total = restCounts.reduce((n, counts) => n + appTotal(counts), 0);
    lines.push(`and ${rest.length} more clusters: ${finished}/${total} done`);
  }
  return lines;
}

function parse(time: string | undefined): number | undefined {
  const ms = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isFinite(ms) ? ms : undefined;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
