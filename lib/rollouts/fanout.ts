import { errorMessage } from '../errors.js';
import type { FleetCluster, FleetGateway } from '../fleet/gateway.js';
import { buildMatchIndex, type FleetObject, type ObjectMatch } from '../matching/match-index.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { PushMessage, TrackMessage } from '../queue/messages.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import type { ChangedFiles, PushEvent } from '../webhook/push-event.js';
import type { DecisionRecord } from './model.js';
import { refreshAll } from './refresh-apps.js';
import type {
  AppStateWriter,
  ClusterErrors,
  RolloutMeta,
  RolloutReader,
  RolloutWriter,
  TrackingClaims,
} from './rollout-store.js';

export interface PreflightVerdict {
  readonly verdict: 'pass' | 'warn' | 'block';
  readonly checks: readonly SecretCheck[];
  readonly summary?: string;
  /** Where the checked manifests came from: Argo CD's rendering, or the files in Git. */
  readonly renderedBy?: 'argocd' | 'git';
  /** Why Argo CD's rendering was not used (or why nothing could be rendered). */
  readonly renderNote?: string;
}

/** Checks an Application's ExternalSecrets at the pushed commit before it is refreshed. */
export type Preflight = (match: ObjectMatch, event: PushEvent) => Promise<PreflightVerdict>;

export interface FanoutDeps {
  readonly fleet: FleetGateway;
  readonly rollouts: RolloutWriter &
    AppStateWriter &
    TrackingClaims &
    ClusterErrors &
    Pick<RolloutReader, 'listApps'>;
  /** Fills in an unknown file list from the provider's compare API; returns it unchanged when it cannot. */
  readonly changedFiles: (event: PushEvent) => Promise<ChangedFiles>;
  readonly preflight: Preflight;
  readonly notify: (sha: string) => Promise<void>;
  readonly pushQueue: Queue<PushMessage>;
  readonly trackQueue: Queue<TrackMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly trackDeadlineSeconds: number;
  readonly trackIntervalSeconds: number;
  /** A second delivery of the same commit within this window does not patch an app again. */
  readonly refreshWindowSeconds?: number;
  /** Times a cluster that could not be listed is tried again (delayed) before its error is final. */
  readonly clusterRetries?: number;
}

export interface FanoutResult {
  readonly matched: number;
  readonly refreshed: number;
  readonly blocked: number;
  readonly errors: number;
  readonly unreadableClusters: readonly string[];
}

const REFRESH_DECISIONS = new Set(['refreshed', 'refreshed-unknown-files']);

/**
 * One push across the fleet: list each cluster once (in parallel), match, preflight ExternalSecrets, refresh
 * with bounded concurrency per cluster, and record an outcome for every object whose repository matched.
 * A cluster that is down or slow never hides the others: its failure is recorded and retried on its own.
 */
export async function fanoutPush(message: PushMessage, deps: FanoutDeps): Promise<FanoutResult> {
  const { event } = message;
  const sha = event.after;
  const log = deps.logger.child({ delivery: event.deliveryId, repo: event.repo.fullName, sha });
  const now = deps.clock.now();
  const meta: RolloutMeta = {
    sha,
    repo: event.repo.fullName,
    ref: event.ref,
    trigger: message.trigger,
    receivedAt: event.receivedAt,
  };
  const deadline = new Date(now.getTime() + deps.trackDeadlineSeconds * 1000).toISOString();
  await deps.rollouts.start({
    ...meta,
    repoUrl: event.repo.webUrl,
    provider: event.provider,
    author: event.author.name,
    commitTitle: event.commitTitle,
    ...(event.commitUrl === undefined ? {} : { commitUrl: event.commitUrl }),
    ...(message.missedWebhook === true ? { missedWebhook: true } : {}),
    deadline,
  });

  const clusters = deps.fleet.clusters.filter(
    (c) => message.clusters === undefined || message.clusters.includes(c.name),
  );
  const [files, listed] = await Promise.all([deps.changedFiles(event), listClusters(clusters)]);
  const unreadable = listed.flatMap((l) => (l.error === undefined ? [] : [l]));
  const index = buildMatchIndex(listed.flatMap((l) => l.objects));
  const { matches, failures } = index.match(event, files);

  const decisions: DecisionRecord[] = failures.map((f) => ({
    cluster: f.cluster,
    kind: f.kind,
    namespace: f.namespace ?? '',
    name: f.name ?? '',
    decision: 'error',
    detail: f.reason,
  }));
  const candidates: ObjectMatch[] = [];
  for (const m of matches) {
    if (REFRESH_DECISIONS.has(m.decision)) candidates.push(m);
    else decisions.push({ ...m.target, decision: m.decision, detail: m.reason });
  }

  const outcomes = await refreshAll(candidates, meta, event, deps, log);
  decisions.push(...outcomes.map((o) => ({ ...o.target, decision: o.decision, detail: o.detail })));
  await deps.rollouts.recordDecisions(
    sha,
    `${event.receivedAt}#${event.deliveryId}#${message.attempt ?? 0}`,
    decisions,
  );
  await recordUnreadable(message, unreadable, deps, log);

  const summary = await deps.rollouts.syncSummary(sha);
  const refreshed = outcomes.filter((o) => o.state === 'refreshed').length;
  if (refreshed > 0 && (await deps.rollouts.claimTracking(sha, deadline, now))) {
    await deps.trackQueue.send(
      { type: 'track', sha, deadline, attempt: 0 },
      { delaySeconds: deps.trackIntervalSeconds },
    );
  }
  if (candidates.length > 0 || unreadable.length > 0) await deps.notify(sha);
  const result = {
    matched: candidates.length,
    refreshed,
    blocked: outcomes.filter((o) => o.state === 'blocked').length,
    errors: outcomes.filter((o) => o.state === 'error').length + failures.length,
    unreadableClusters: unreadable.map((u) => u.cluster),
  };
  log.info('push fanned out', {
    ...result,
    decisions: decisions.length,
    status: summary?.status,
    files: files.known,
  });
  return result;
}

interface Listed {
  readonly cluster: string;
  readonly objects: FleetObject[];
  readonly error?: string;
}

async function listClusters(clusters: readonly FleetCluster[]): Promise<Listed[]> {
  return Promise.all(
    clusters.map(async (cluster): Promise<Listed> => {
      try {
        const lists = await Promise.all(
          cluster.kinds.map(async (kind) =>
            (await cluster.list(kind)).map((raw) => ({ cluster: cluster.name, kind, raw })),
          ),
        );
        return { cluster: cluster.name, objects: lists.flat() };
      } catch (error) {
        return { cluster: cluster.name, objects: [], error: errorMessage(error) };
      }
    }),
  );
}

async function recordUnreadable(
  message: PushMessage,
  unreadable: readonly Listed[],
  deps: FanoutDeps,
  log: Logger,
) {
  const attempt = message.attempt ?? 0;
  const retries = deps.clusterRetries ?? 3;
  const sha = message.event.after;
  const read = deps.fleet.clusters
    .map((c) => c.name)
    .filter(
      (n) =>
        (message.clusters === undefined || message.clusters.includes(n)) &&
        !unreadable.some((u) => u.cluster === n),
    );
  for (const name of read) await deps.rollouts.recordClusterError(sha, name, undefined);
  for (const u of unreadable) {
    const final = attempt >= retries;
    log.warn('cluster unreadable', { cluster: u.cluster, error: u.error, attempt, final });
    await deps.rollouts.recordClusterError(
      sha,
      u.cluster,
      `cannot list objects: ${u.error ?? 'unknown error'}${final ? ` (gave up after ${attempt + 1} attempts)` : ' (retrying)'}`,
    );
  }
  if (unreadable.length > 0 && attempt < retries) {
    await deps.pushQueue.send(
      { ...message, clusters: unreadable.map((u) => u.cluster), attempt: attempt + 1 },
      { delaySeconds: 30 * (attempt + 1) },
    );
  }
}
