// The states of an app in a rollout and of the rollout itself: their order, which ones end an app, and the
// rollout's status derived from its apps' states.

export const APP_STATES = [
  'matched',
  'held',
  'blocked',
  'refreshed',
  'syncing',
  'synced',
  'out-of-sync',
  'failed',
  'degraded',
  'timeout',
  'error',
  'superseded',
  'aborted',
] as const;
export type AppState = (typeof APP_STATES)[number];

/**
 * The apps of a rollout a notice names one by one, in listing order: what needs a person (failed, error,
 * degraded, timeout, blocked, out of sync) and what an abort ended. The others are only counted.
 */
export const PROBLEM_STATES: readonly AppState[] = [
  'failed',
  'error',
  'degraded',
  'timeout',
  'blocked',
  'out-of-sync',
  'aborted',
];

export const ROLLOUT_STATUSES = [
  'pending',
  'in-progress',
  'succeeded',
  'failed',
  'partial',
  'blocked',
  'halted',
  'paused',
  'aborted',
] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** A rollout in one of these is not over (a paused or halted one's held apps may still be released). */
export const OPEN_STATUSES: ReadonlySet<string> = new Set(['pending', 'in-progress', 'paused', 'halted']);

export const TERMINAL_STATES: ReadonlySet<AppState> = new Set([
  'blocked',
  'synced',
  'out-of-sync',
  'failed',
  'degraded',
  'timeout',
  'error',
  'superseded',
  'aborted',
]);

/** States only move forward: a lower rank never overwrites a higher one. */
export const STATE_RANK: Readonly<Record<AppState, number>> = {
  matched: 0,
  // Held: recorded, not refreshed; released to `matched` (claimed) when its hold lifts.
  held: 0,
  refreshed: 1,
  syncing: 2,
  blocked: 3,
  synced: 3,
  'out-of-sync': 3,
  failed: 3,
  degraded: 3,
  timeout: 3,
  error: 3,
  superseded: 3,
  aborted: 3,
};

export function isTerminal(state: AppState): boolean {
  return TERMINAL_STATES.has(state);
}

/** An app in flight: not ended, and not parked by a hold (a `held` app waits for release control, not Argo CD). */
export function isInFlight(state: AppState): boolean {
  return !TERMINAL_STATES.has(state) && state !== 'held';
}

export type StateCounts = Partial<Record<AppState, number>>;

export function countStates(states: Iterable<AppState>): StateCounts {
  const counts: StateCounts = {};
  for (const state of states) counts[state] = (counts[state] ?? 0) + 1;
  return counts;
}

/**
 * The rollout's summary status, derived from its apps only:
 * nothing ended yet → pending/in-progress; all synced → succeeded; none synced → failed
 * (or blocked when every unfinished-looking app is held back); some synced → partial.
 */
export function deriveRolloutStatus(all: readonly AppState[]): RolloutStatus {
  // A superseded app ended well: a later push of its ref carries it on. It neither helps nor fails the status.
  const states = all.filter((s) => s !== 'superseded');
  if (states.length === 0) return 'succeeded';
  if (states.some((s) => !isTerminal(s))) {
    return states.every((s) => s === 'matched' || s === 'held') ? 'pending' : 'in-progress';
  }
  if (states.every((s) => s === 'aborted')) return 'aborted';
  const synced = states.filter((s) => s === 'synced').length;
  if (synced === states.length) return 'succeeded';
  if (states.every((s) => s === 'blocked' || s === 'synced')) return synced === 0 ? 'blocked' : 'partial';
  return synced === 0 ? 'failed' : 'partial';
}
