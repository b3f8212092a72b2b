import type { Clock, Metrics } from '../ports.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import type { AppState } from '../rollouts/state-model.js';

const ENDED = new Set(['succeeded', 'failed', 'partial', 'blocked']);

/** Final app states counted under their own metric names (the alarms and dashboards read these). */
const FINAL_STATE_METRICS: Partial<Record<AppState, string>> = {
  blocked: 'AppsBlocked',
  failed: 'AppsFailed',
  degraded: 'AppsFailed',
  error: 'AppsFailed',
  timeout: 'AppsTimedOut',
  synced: 'AppsSynced',
  'out-of-sync': 'AppsOutOfSync',
  superseded: 'AppsSuperseded',
} as Partial<Record<AppState, string>>;

/**
 * Counts a rollout once when its notice first sees it ended: apps refreshed, by final state, and its
 * duration (received → finished). The memo is per container, so a rollout whose last notices run on two
 * containers may be counted twice; the engine can count exactly through the same Metrics port.
 */
export function rolloutEndCounter(metrics: Metrics, clock: Clock, memo = 500) {
  const counted = new Set<string>();
  // Rollouts whose apps one caller is reading to count them: the notices of ten track polls of one
  // invocation see a big rollout end together, and each would otherwise hold all its apps at once.
  const claimed = new Set<string>();
  /** Whether a rollout with this summary would be counted now (so its apps are worth reading). */
  const due = (summary: Pick<Rollout, 'sha' | 'status'>): boolean =>
    ENDED.has(summary.status) && !counted.has(summary.sha) && !claimed.has(summary.sha);
  /** `due`, and if so no other caller of this container is due until `release` (or the count). */
  const claim = (summary: Pick<Rollout, 'sha' | 'status'>): boolean => {
    if (!due(summary)) return false;
    claimed.add(summary.sha);
    return true;
  };
  const release = (sha: string): void => {
    claimed.delete(sha);
  };
  const count = (rollout: Rollout): void => {
    if (!ENDED.has(rollout.status) || counted.has(rollout.sha)) return;
    claimed.delete(rollout.sha);
    counted.add(rollout.sha);
    if (counted.size > memo) counted.delete(counted.values().next().value as string);
    const dimensions = { status: rollout.status, trigger: rollout.trigger };
    metrics.count('RolloutsEnded', 1, dimensions);
    metrics.count('AppsRefreshed', rollout.apps.filter((a) => a.refreshedAt !== undefined).length);
    const totals = new Map<string, number>();
    for (const app of rollout.apps) {
      const name = FINAL_STATE_METRICS[app.state];
      if (name !== undefined) totals.set(name, (totals.get(name) ?? 0) + 1);
    }
    for (const name of new Set(Object.values(FINAL_STATE_METRICS))) {
      if (name !== undefined) metrics.count(name, totals.get(name) ?? 0);
    }
    const end = Date.parse(rollout.finishedAt ?? '') || clock.now().getTime();
    const start = Date.parse(rollout.receivedAt);
    if (Number.isFinite(start)) metrics.timing('RolloutDuration', end - start, dimensions);
  };
  return Object.assign(count, { due, claim, release });
}
