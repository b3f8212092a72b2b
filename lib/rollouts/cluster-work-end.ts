/**
 * What a work item does once its apps are decided (cluster-work.ts): notes Argo CD instances that poll Git on
 * their own while apps are held, sends what is left as a delayed work item or ends it after the last
 * attempt, and starts tracking the apps it refreshed.
 */
import { errorMessage } from '../errors.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import type { Logger } from '../ports.js';
import type { ClusterWorkMessage } from '../queue/messages.js';
import type { DecisionTally } from './ports/cluster-progress.js';
import type { AppOutcome, ClusterWorkDeps } from './work-model.js';

/** One target's key, for sets and maps of targets. */
export const targetKey = (t: { cluster: string; kind: string; namespace: string; name: string }) =>
  `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

/**
 * A push that holds or blocks apps of a repository not under `control: pin` on an Argo CD that polls Git
 * only withholds our refresh: the instance is listed in the rollout's `ungated` (never fails the work).
 */
export async function noteUngated(
  cluster: string,
  sha: string,
  outcomes: readonly AppOutcome[],
  repoKey: string | undefined,
  deps: ClusterWorkDeps,
  log: Logger,
): Promise<void> {
  if (deps.ungated === undefined) return;
  const pinned =
    repoKey !== undefined && (deps.pinnedRepos ?? []).some((r) => canonicalRepoKey(r) === repoKey);
  if (pinned) return;
  const holding = new Set(
    outcomes.filter((o) => o.decision === 'held' || o.decision === 'blocked').map((o) => o.target.namespace),
  );
  if (holding.size === 0) return;
  try {
    const found = (await deps.ungated.instances()).filter(
      (i) => i.cluster === cluster && holding.has(i.namespace),
    );
    if (found.length > 0) await deps.ungated.note(sha, found);
  } catch (error) {
    log.warn('ungated instances not noted', { error: errorMessage(error) });
  }
}

/**
 * Sends what is left as a delayed work item for this cluster, or records it as failed after the last
 * attempt. Work cut short by the time budget continues at once and does not use up an attempt.
 */
export async function retryOrFail(
  message: ClusterWorkMessage,
  reason: string,
  apps: ClusterWorkMessage['apps'],
  deps: ClusterWorkDeps,
  log: Logger,
  onlyDeferred = false,
  decided?: DecisionTally,
): Promise<void> {
  const sha = message.event.after;
  const maxAttempts = deps.maxAttempts ?? 5;
  const attempt = onlyDeferred ? message.attempt : message.attempt + 1;
  if (attempt >= maxAttempts) {
    log.error('cluster work gave up', { reason, attempts: attempt });
    await deps.rollouts.recordCluster(
      sha,
      message.cluster,
      'failed',
      `${reason} (gave up after ${attempt} attempts)`,
      decided,
    );
    if (apps !== undefined) await failApps(message, apps, reason, attempt, deps);
    return;
  }
  const delaySeconds = onlyDeferred ? 0 : Math.min(900, (deps.retryBaseSeconds ?? 30) * 2 ** (attempt - 1));
  const next: ClusterWorkMessage = {
    ...message,
    attempt,
    ...(apps === undefined ? {} : { apps }),
  };
  await deps.queue.send(next, { delaySeconds });
  await deps.rollouts.recordCluster(sha, message.cluster, 'retrying', `${reason} (retrying)`, decided);
  log.warn('cluster work retrying', { reason, next: attempt, delaySeconds, apps: apps?.length });
}

/** The apps the last attempt could not refresh end as `error`, with the reason. */
async function failApps(
  message: ClusterWorkMessage,
  apps: NonNullable<ClusterWorkMessage['apps']>,
  reason: string,
  attempts: number,
  deps: ClusterWorkDeps,
): Promise<void> {
  const sha = message.event.after;
  const existing = new Map(
    (await deps.rollouts.listApps(sha, message.cluster)).map((a) => [targetKey(a), a]),
  );
  const now = deps.clock.now().toISOString();
  for (const target of apps) {
    const app = existing.get(targetKey(target));
    if (app === undefined || app.state !== 'matched') continue;
    await deps.rollouts.transition(
      sha,
      target,
      {
        state: 'error',
        decision: 'error',
        message: `${app.message ?? reason} (gave up after ${attempts} attempts)`,
        finishedAt: now,
      },
      app.version,
    );
  }
}

/**
 * Registers the rollout with the cluster's track chain as it claims the chain (one write) and, when this
 * claim started the chain, sends its first poll. `holder`: this work item's name in the rollout's cluster
 * lease, when it held it. Every app record it writes is written before this is called, so a poll that finds
 * the lease last released by it knows no one wrote the apps since its own read, and batches from that read
 * (as from a poll before it).
 */
export async function startTracking(
  cluster: string,
  sha: string,
  deps: ClusterWorkDeps,
  holder?: string,
): Promise<void> {
  const now = deps.clock.now();
  const until = new Date(now.getTime() + deps.chainLeaseSeconds * 1000).toISOString();
  if (await deps.trackers.claimChain(cluster, until, now, sha)) {
    await deps.trackQueue.send(
      {
        type: 'track',
        cluster,
        attempt: 0,
        ...(holder === undefined ? {} : { leaseHolders: { [sha]: holder } }),
      },
      { delaySeconds: deps.trackIntervalSeconds },
    );
  }
}
