import { errorMessage } from '../errors.js';
import { DEFAULT_MESSAGE_LIMITS } from '../notify/rollout-message.js';
import type { RolloutNotifier } from '../notify/rollout-notifier.js';
import type { RolloutSnapshot } from '../notify/types.js';
import { rolloutEndCounter } from '../observability/rollout-metrics.js';
import { type Clock, type Logger, type Metrics, noMetrics, systemClock } from '../ports.js';
import type { AppRecord } from './app-model.js';
import type { RolloutReader } from './ports/rollout-reader.js';
import type { RolloutDigest, RolloutDigestReader } from './rollout-digest.js';
import type { Rollout } from './rollout-model.js';

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

/** Problem apps (and warned apps) a notice reads by name: as many as the message lists. */
export const NOTICE_APPS_READ = DEFAULT_MESSAGE_LIMITS.maxAppsListed;

/**
 * The notifier's view of a rollout from its digest: the apps it names (the first problem apps, the first
 * warned apps, one `error` line per unreadable cluster) and the counts of every app from the summary's views.
 */
export function snapshotOfDigest(digest: RolloutDigest): RolloutSnapshot {
  const base = snapshotOf({ ...digest.summary, apps: [] });
  const byKey = new Map<string, AppRecord>();
  for (const app of [...digest.problems, ...digest.warned])
    byKey.set(`${app.cluster}/${app.kind}/${app.namespace}/${app.name}`, app);
  const clusters: Record<string, Record<string, number>> = {};
  const counts: Record<string, number> = {};
  const add = (cluster: string, state: string, n: number) => {
    const into = clusters[cluster] ?? {};
    clusters[cluster] = into;
    into[state] = (into[state] ?? 0) + n;
    counts[state] = (counts[state] ?? 0) + n;
  };
  for (const [cluster, view] of Object.entries(digest.clusters))
    for (const [state, n] of Object.entries(view)) if ((n ?? 0) > 0) add(cluster, state, n ?? 0);
  for (const line of base.apps) add(line.cluster, 'error', 1);
  return {
    ...base,
    apps: [...byKey.values(), ...base.apps],
    tally: { counts, clusters, waves: digest.waves, warned: digest.warnedCount },
  };
}

/**
 * Keeps the commit's Slack message current after the records are written. A rollout that matched nothing
 * sends nothing; a Slack failure is logged and never fails the caller. With `digests`, a notice reads the
 * rollout's summary and a bounded list of the apps it names (O(problems), not O(apps)); the end metrics come
 * from the summary too.
 */
export function rolloutNotice(deps: {
  rollouts: RolloutReader;
  digests?: RolloutDigestReader;
  notifier: RolloutNotifier;
  logger: Logger;
  metrics?: Metrics;
  clock?: Clock;
}) {
  /** The end metrics, from the summary: counted when the rollout is first seen ended. */
  const countEnd = rolloutEndCounter(deps.metrics ?? noMetrics, deps.clock ?? systemClock);
  const send = async (sha: string, snapshot: RolloutSnapshot) => {
    const result = await deps.notifier.notify(snapshot);
    if (result.errors.length > 0) {
      deps.logger.warn('slack notice incomplete', { sha, errors: result.errors.map((e) => e.message) });
    }
  };
  return async (sha: string): Promise<void> => {
    try {
      // Every app of the rollout is read only by Slack without a digest reader.
      if (deps.notifier.active === false) {
        // The digest without apps is the summary alone, or the item this container's write just returned.
        const summary = deps.digests
          ? (await deps.digests.digest(sha, 0))?.summary
          : await deps.rollouts.summary(sha);
        if (summary !== undefined) countEnd(summary);
        return;
      }
      if (deps.digests !== undefined) {
        const digest = await deps.digests.digest(sha, NOTICE_APPS_READ);
        if (digest === undefined) return;
        countEnd(digest.summary);
        const snapshot = snapshotOfDigest(digest);
        if (snapshot.apps.length === 0 && Object.keys(snapshot.tally?.counts ?? {}).length === 0) return;
        return await send(sha, snapshot);
      }
      const rollout = await deps.rollouts.get(sha);
      if (rollout === undefined) return;
      countEnd(rollout);
      const snapshot = snapshotOf(rollout);
      if (snapshot.apps.length === 0) return;
      await send(sha, snapshot);
    } catch (error) {
      deps.logger.warn('slack notice failed', { sha, error: errorMessage(error) });
    }
  };
}
