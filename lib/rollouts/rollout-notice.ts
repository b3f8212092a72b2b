import { errorMessage } from '../errors.js';
import type { RolloutNotifier } from '../notify/rollout-notifier.js';
import type { RolloutSnapshot } from '../notify/types.js';
import { rolloutEndCounter } from '../observability/rollout-metrics.js';
import { type Clock, type Logger, type Metrics, noMetrics, systemClock } from '../ports.js';
import type { AppRecord, Rollout } from './model.js';
import type { RolloutReader } from './rollout-store.js';

/** The notifier's view of a stored rollout; an unreadable cluster shows as one `error` line of its own. */
export function snapshotOf(rollout: Rollout): RolloutSnapshot {
  const clusterLines: AppRecord[] = Object.entries(rollout.clusterErrors ?? {}).map(([cluster, message]) => ({
    cluster,
    namespace: '*',
    name: '(cluster)',
    kind: 'Application',
    state: 'error',
    message,
  }));
  return {
    sha: rollout.sha,
    repo: { fullName: rollout.repo, webUrl: rollout.repoUrl },
    ref: rollout.ref,
    trigger: rollout.trigger,
    author: rollout.author ?? 'unknown',
    commitTitle: rollout.commitTitle ?? '',
    ...(rollout.commitUrl === undefined ? {} : { commitUrl: rollout.commitUrl }),
    status: rollout.status,
    apps: [...rollout.apps, ...clusterLines],
    refs: rollout.refs,
    receivedAt: rollout.receivedAt,
    ...(rollout.deadline === undefined ? {} : { deadline: rollout.deadline }),
    ...(rollout.finishedAt === undefined ? {} : { finishedAt: rollout.finishedAt }),
    ...(rollout.waves === undefined ? {} : { waves: rollout.waves }),
    ...(rollout.actions === undefined ? {} : { actions: rollout.actions }),
    ...(rollout.ungated === undefined ? {} : { ungated: rollout.ungated }),
  };
}

/**
 * Keeps the commit's Slack message current after the records are written. A rollout that matched nothing
 * sends nothing; a Slack failure is logged and never fails the caller.
 */
export function rolloutNotice(deps: {
  rollouts: RolloutReader;
  notifier: RolloutNotifier;
  logger: Logger;
  metrics?: Metrics;
  clock?: Clock;
}) {
  const countEnd = rolloutEndCounter(deps.metrics ?? noMetrics, deps.clock ?? systemClock);
  return async (sha: string): Promise<void> => {
    try {
      // Every app of the rollout is read only when something will use them: Slack, or the end metrics (by
      // one notice of this container at a time, so concurrent notices do not each hold every app).
      if (deps.notifier.active === false) {
        const summary = await deps.rollouts.summary(sha);
        if (summary === undefined || !countEnd.claim(summary)) return;
        try {
          const rollout = await deps.rollouts.get(sha);
          if (rollout !== undefined) countEnd(rollout);
        } finally {
          countEnd.release(sha);
        }
        return;
      }
      const rollout = await deps.rollouts.get(sha);
      if (rollout === undefined) return;
      countEnd(rollout);
      const snapshot = snapshotOf(rollout);
      if (snapshot.apps.length === 0) return;
      const result = await deps.notifier.notify(snapshot);
      if (result.errors.length > 0) {
        deps.logger.warn('slack notice incomplete', { sha, errors: result.errors.map((e) => e.message) });
      }
    } catch (error) {
      deps.logger.warn('slack notice failed', { sha, error: errorMessage(error) });
    }
  };
}
