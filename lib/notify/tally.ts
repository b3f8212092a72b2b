import type { AppRecord } from '../rollouts/app-model.js';
import { type AppState, countStates, isTerminal, type StateCounts } from '../rollouts/state-model.js';
import type { RolloutSnapshot } from './types.js';

/**
 * What a notice counts: from the snapshot's `tally` (the summary's views, when the notice read the rollout's
 * digest and `apps` holds only the apps it names), else from `apps` (every app record).
 */
export function stateCounts(snapshot: RolloutSnapshot): StateCounts {
  return snapshot.tally?.counts ?? countStates(snapshot.apps.map((app) => app.state));
}

export function appTotal(counts: StateCounts): number {
  return Object.values(counts).reduce((sum: number, n) => sum + (n ?? 0), 0);
}

/** Apps in any of `states`. */
export function countIn(counts: StateCounts, states: ReadonlySet<AppState>): number {
  let n = 0;
  for (const [state, count] of Object.entries(counts)) if (states.has(state as AppState)) n += count ?? 0;
  return n;
}

export function allTerminal(counts: StateCounts): boolean {
  return Object.entries(counts).every(([state, n]) => (n ?? 0) === 0 || isTerminal(state as AppState));
}

/**
 * Counts per cluster: with a tally, per cluster holding the apps (the summary's views); else per destination
 * cluster (the fleet cluster an app deploys to, else the cluster holding it).
 */
export function clusterCounts(snapshot: RolloutSnapshot): ReadonlyMap<string, StateCounts> {
  if (snapshot.tally !== undefined) return new Map(Object.entries(snapshot.tally.clusters));
  return group(snapshot.apps, (app) => app.destination ?? app.cluster);
}

/** Counts per wave (apps without a wave left out). */
export function waveCounts(snapshot: RolloutSnapshot): ReadonlyMap<string, StateCounts> {
  if (snapshot.tally !== undefined) return new Map(Object.entries(snapshot.tally.waves));
  return group(
    snapshot.apps.filter((app) => app.wave !== undefined),
    (app) => app.wave as string,
  );
}

/** Apps the preflight warned about in all (`apps` holds the first of them when there is a tally). */
export function warnedTotal(snapshot: RolloutSnapshot, named: number): number {
  return snapshot.tally?.warned ?? named;
}

function group(apps: readonly AppRecord[], key: (app: AppRecord) => string): Map<string, StateCounts> {
  const out = new Map<string, Record<string, number>>();
  for (const app of apps) {
    const name = key(app);
    const counts = out.get(name) ?? {};
    counts[app.state] = (counts[app.state] ?? 0) + 1;
    out.set(name, counts);
  }
  return out as Map<string, StateCounts>;
}
