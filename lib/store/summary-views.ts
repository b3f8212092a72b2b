import { controlledStatus } from '../release/status.js';
import type { ViewedApp } from '../rollouts/ports/app-state.js';
import {
  type AppState,
  countStates,
  deriveRolloutStatus,
  isTerminal,
  type StateCounts,
} from '../rollouts/state-model.js';
import { summaryFromItem } from './rollout-items.js';

// The summary item's per-cluster and per-wave views of a rollout's apps, and what is read from them: the
// rollout's status, counts and version, its waves' views, the synced summary. Pure: no table access.

type Item = Record<string, unknown>;

/**
 * One cluster's apps of a rollout, condensed: state counts, the sum of the apps' versions (versions only
 * grow, so a larger sum is a newer view) and the latest end. Stored in the summary item's `views` map, so
 * the rollout's status is derived from one item instead of from every app of every cluster.
 */
export interface ClusterView {
  readonly c: StateCounts;
  readonly v: number;
  readonly f?: string;
  /** With waves: the same per wave (counts and the latest end), what a wave's gate is judged on. */
  readonly w?: Readonly<Record<string, WaveView>>;
  /**
   * Apps per state by destination cluster, when any app deploys to another cluster than the one holding it
   * (hub and spoke): what the check run's table shows per destination.
   */
  readonly d?: Readonly<Record<string, StateCounts>>;
}

export interface WaveView {
  readonly c: StateCounts;
  readonly f?: string;
}

function condensed(apps: readonly (Item | ViewedApp)[]): WaveView {
  const states = apps.map((a) => a.state as AppState);
  const ends = apps.map((a) => String(a.finishedAt ?? a.updatedAt ?? '')).filter((e) => e !== '');
  const finished = states.length > 0 && states.every(isTerminal);
  return {
    c: countStates(states),
    ...(finished && ends.length > 0 ? { f: ends.sort().at(-1) as string } : {}),
  };
}

export function clusterView(apps: readonly (Item | ViewedApp)[], cluster: string): ClusterView {
  const byWave = new Map<string, (Item | ViewedApp)[]>();
  const byDestination = new Map<string, AppState[]>();
  let elsewhere = false;
  for (const app of apps) {
    const destination = typeof app.destination === 'string' ? app.destination : cluster;
    if (destination !== cluster) elsewhere = true;
    byDestination.set(destination, [...(byDestination.get(destination) ?? []), app.state as AppState]);
    if (typeof app.wave !== 'string') continue;
    byWave.set(app.wave, [...(byWave.get(app.wave) ?? []), app]);
  }
  return {
    ...condensed(apps),
    v: apps.reduce((sum, a) => sum + Number(a.version ?? 0), 0),
    ...(byWave.size === 0
      ? {}
      : { w: Object.fromEntries([...byWave].map(([wave, list]) => [wave, condensed(list)])) }),
    ...(elsewhere
      ? { d: Object.fromEntries([...byDestination].map(([name, states]) => [name, countStates(states)])) }
      : {}),
  };
}

/** Each wave's apps over every cluster's view: counts per state and the latest end, by wave name. */
export function waveViews(
  summary: Item,
): Record<string, WaveView & { readonly clusters: readonly string[] }> {
  const out: Record<string, { c: Record<string, number>; f?: string; clusters: string[] }> = {};
  for (const [cluster, view] of Object.entries((summary.views ?? {}) as Record<string, ClusterView>)) {
    for (const [wave, part] of Object.entries(view.w ?? {})) {
      const into = out[wave] ?? { c: {}, clusters: [] };
      out[wave] = into;
      for (const [state, n] of Object.entries(part.c)) into.c[state] = (into.c[state] ?? 0) + (n ?? 0);
      if (part.f !== undefined && (into.f === undefined || part.f > into.f)) into.f = part.f;
      into.clusters.push(cluster);
    }
  }
  return out;
}

/**
 * A cluster whose work item has not finished counts as an unfinished app, one that failed as an error, so
 * the rollout never looks done while a cluster is still being retried.
 */
function clusterStates(summary: Item): AppState[] {
  const progress = (summary.clusters ?? {}) as Record<string, string>;
  const errors = Object.keys((summary.clusterErrors ?? {}) as Record<string, string>);
  const views = summary.views as Record<string, unknown> | undefined;
  const states: AppState[] = [];
  for (const [cluster, value] of Object.entries(progress)) {
    if (value === 'planned' || value === 'retrying') states.push('matched');
    else if (value === 'failed') states.push('error');
    // A work item's end and its view are one write, except the two-write way (done first, then the view):
    // until the view is there another cluster's sync must not see the rollout over (it once read
    // `succeeded` with no counts, and said so on the Git host, while the cluster's apps were refreshing).
    else if (value === 'done' && views !== undefined && views[cluster] === undefined) states.push('matched');
  }
  // Items written before per-cluster progress existed: every recorded error counts.
  if (Object.keys(progress).length === 0) for (const _ of errors) states.push('error');
  return states;
}

/** Status, counts and order of the whole rollout from its clusters' views and their work items' progress. */
export function rolloutView(summary: Item) {
  const views = Object.values((summary.views ?? {}) as Record<string, ClusterView>);
  const states: AppState[] = clusterStates(summary);
  for (const view of views) {
    for (const [state, n] of Object.entries(view.c))
      for (let i = 0; i < (n ?? 0); i++) states.push(state as AppState);
  }
  const finished = states.length > 0 && states.every(isTerminal);
  const ends = views.flatMap((view) => (view.f === undefined ? [] : [view.f])).sort();
  return {
    status: controlledStatus(deriveRolloutStatus(states), summary),
    counts: countStates(states),
    version: views.reduce((sum, view) => sum + view.v, 0) + Number(summary.errorsVersion ?? 0),
    finishedAt: finished ? ends.at(-1) : undefined,
  };
}

export const syncedFromItem = (item: Item) => ({
  ...summaryFromItem(item),
  appsVersion: Number(item.appsVersion ?? 0),
  waveViews: waveViews(item),
  ...(item.paused === true ? { paused: true } : {}),
  ...(item.aborted === true ? { aborted: true } : {}),
  ...(item.halted === true ? { halted: true } : {}),
});
