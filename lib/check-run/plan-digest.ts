import { controlLine, summaryLine } from '../commit-status/plan.js';
import { RETRYABLE } from '../release/control.js';
import type { RolloutDigest } from '../rollouts/rollout-digest.js';
import {
  APP_STATES,
  type AppState,
  isTerminal,
  PROBLEM_STATES,
  type StateCounts,
} from '../rollouts/state-model.js';
import { conclusionOf, type PlannedCheckRun, RETRY } from './plan.js';
import {
  addTo,
  appLine,
  bounded,
  type ClusterRow,
  clusterErrorLines,
  clustersTable,
} from './plan-markdown.js';

/** The problem apps a check run's text names one by one (the digest's bound); the rest are counted. */
export const CHECK_RUN_APPS_NAMED = 100;

/**
 * The check run for a rollout read as its digest (the summary's per-cluster views and the first problem
 * apps), whatever the rollout's size: the same title, conclusion, table and button as from every app record
 * (a row per destination cluster, from the views' per-destination counts); the text names
 * the first problem apps and counts the others not synced by state.
 */
export function planCheckRunOfDigest(
  digest: RolloutDigest,
  options: { readonly pageUrl?: string } = {},
): PlannedCheckRun | undefined {
  const rollout = digest.summary;
  const rows = new Map<string, ClusterRow>();
  const total = new Map<AppState, number>();
  for (const [cluster, counts] of Object.entries(digest.destinations)) {
    for (const [state, n] of stateCounts(counts)) {
      addTo(rows, cluster, state, n);
      total.set(state, (total.get(state) ?? 0) + n);
    }
  }
  const errors = Object.keys(rollout.clusterErrors ?? {});
  for (const cluster of errors) addTo(rows, cluster, 'error', 1);
  const states: AppState[] = [];
  for (const [state, n] of total) for (let i = 0; i < n; i++) states.push(state);
  for (const _ of errors) states.push('error');
  if (states.length === 0) return undefined;
  const conclusion = conclusionOf(rollout.status);
  const control = controlLine(rollout);
  const counts = summaryLine(states);
  const retryable = rollout.status !== 'aborted' && [...RETRYABLE].some((s) => (total.get(s) ?? 0) > 0);
  return {
    status: conclusion === undefined ? 'in_progress' : 'completed',
    ...(conclusion === undefined ? {} : { conclusion }),
    title: control === undefined ? counts : `${control} · ${counts}`.slice(0, 200),
    summary: clustersTable(rollout, rows),
    text: notSyncedOfDigest(digest, total),
    ...(options.pageUrl === undefined ? {} : { detailsUrl: options.pageUrl }),
    actions: retryable ? [RETRY] : [],
  };
}

/** Apps that ended, from the views: what orders the check run's views of one rollout. */
export function endedOfDigest(digest: RolloutDigest): number {
  let ended = 0;
  for (const counts of Object.values(digest.clusters))
    for (const [state, n] of stateCounts(counts)) if (isTerminal(state)) ended += n;
  return ended;
}

function stateCounts(counts: StateCounts): [AppState, number][] {
  return APP_STATES.flatMap((state) => {
    const n = counts[state] ?? 0;
    return n > 0 ? [[state, n] as [AppState, number]] : [];
  });
}

const PROBLEMS: ReadonlySet<AppState> = new Set(PROBLEM_STATES);

function notSyncedOfDigest(digest: RolloutDigest, total: ReadonlyMap<AppState, number>): string {
  const problems = [...total].filter(([s]) => PROBLEMS.has(s)).reduce((sum, [, n]) => sum + n, 0);
  const named = digest.problems.slice(0, CHECK_RUN_APPS_NAMED);
  const moving = APP_STATES.filter((s) => !PROBLEMS.has(s) && s !== 'synced' && s !== 'superseded')
    .map((s): [AppState, number] => [s, total.get(s) ?? 0])
    .filter(([, n]) => n > 0);
  const stillMoving = moving.reduce((sum, [, n]) => sum + n, 0);
  const lines = [...clusterErrorLines(digest.summary), ...named.map(appLine)];
  if (problems > named.length)
    lines.push(`- … ${problems - named.length} more problem apps: see the rollout page`);
  if (stillMoving > 0)
    lines.push(`- ${stillMoving} more not synced yet (${moving.map(([s, n]) => `${n} ${s}`).join(', ')})`);
  if (lines.length === 0) return 'Every app is synced.';
  const notSynced = problems + stillMoving + Object.keys(digest.summary.clusterErrors ?? {}).length;
  return bounded(`Apps not synced (${notSynced}):\n\n${lines.join('\n')}`, 'apps');
}
