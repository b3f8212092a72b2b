import type { Clock, Metrics } from '../ports.js';
import type { RolloutSummary } from '../rollouts/rollout-model.js';
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
 * Counts a rollout once when its notice first sees it ended: apps refreshed (its `refreshed` and
 * `refreshed-unknown-files` decisions), apps by final state (the summary's counts, as the status and Slack
 * show them: a cluster that could not be read counts as one failed app), and its duration (received →
 * finished). From the summary alone, so a rollout of 100,000 apps costs no read of its apps. The memo is
 * per container, so a rollout whose last notices run on two containers may be counted twice; the engine can
 * count exactly through the same Metrics port.
 */
export function rolloutEndCounter(metrics: Metrics, clock: Clock, memo = 500) {
  const counted = new Set<string>();
  return (summary: RolloutSummary): void => {
    if (!ENDED.has(summary.status) || counted.has(summary.sha)) return;
    counted.add(summary.sha);
    if (counted.size > memo) counted.delete(counted.values().next().value as string);
    const dimensions = { status: summary.status, trigger: summary.trigger };
    metrics.count('RolloutsEnded', 1, dimensions);
    const decisions = summary.decisions ?? {};
    metrics.count('AppsRefreshed', (decisions.refreshed ?? 0) + (decisions['refreshed-unknown-files'] ?? 0));
    const totals = new Map<string, number>();
    for (const [state, n] of Object.entries(summary.counts ?? {}) as [AppState, number | undefined][]) {
      const name = FINAL_STATE_METRICS[state];
      if (name !== undefined) totals.set(name, (totals.get(name) ?? 0) + (n ?? 0));
    }
    for (const name of new Set(Object.values(FINAL_STATE_METRICS))) {
      if (name !== undefined) metrics.count(name, totals.get(name) ?? 0);
    }
    const end = Date.parse(summary.finishedAt ?? '') || clock.now().getTime();
    const start = Date.parse(summary.receivedAt);
    if (Number.isFinite(start)) metrics.timing('RolloutDuration', end - start, dimensions);
  };
}
