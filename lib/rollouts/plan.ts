import { allSettledOrThrow } from '../concurrency.js';
import type { FleetGateway } from '../fleet/gateway.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { ClusterWorkMessage, FanoutMessage, PushMessage } from '../queue/messages.js';
import type { ChangedFiles, PushEvent } from '../webhook/push-event.js';
import type { ClusterProgressWriter } from './ports/cluster-progress.js';
import type { OpenRollouts } from './ports/open-rollouts.js';
import type { RefPushes } from './ports/ref-pushes.js';
import type { RolloutWriter, StoredPushEvent } from './ports/rollout-writer.js';
import { movedOnTo } from './ref-head.js';

export interface PlanDeps {
  readonly fleet: Pick<FleetGateway, 'clusters'>;
  readonly rollouts: Pick<RolloutWriter, 'start'> & Pick<ClusterProgressWriter, 'planClusters'>;
  readonly open: Pick<OpenRollouts, 'open'>;
  readonly refPushes: RefPushes;
  /** The commit the pushed ref points at now, read from the Git host (undefined when it cannot be read). */
  readonly remoteHead?: (event: PushEvent) => Promise<string | undefined>;
  /** Fills in an unknown file list from the provider's compare API; returns it unchanged when it cannot. */
  readonly changedFiles: (event: PushEvent) => Promise<ChangedFiles>;
  readonly queue: Queue<FanoutMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly trackDeadlineSeconds: number;
  /** Release control: the rollout's waves, and an older running rollout of the ref superseded. */
  readonly release?: {
    initWaves(sha: string): Promise<boolean>;
    supersede(olderSha: string, newerSha: string): Promise<number>;
  };
}

export interface PlanResult {
  readonly clusters: readonly string[];
  /** The commit the ref points at now, when it is not the pushed one (this push is superseded). */
  readonly supersededBy?: string;
}

/**
 * A push becomes one work item per cluster: the rollout is started (or its deadline moved on), the file
 * list resolved once, the ref's head noted, and the items sent in batches. Running twice sends the items
 * twice, which the work items tolerate: each app is claimed before it is patched.
 */
export async function planPush(message: PushMessage, deps: PlanDeps): Promise<PlanResult> {
  const { event } = message;
  const sha = event.after;
  const log = deps.logger.child({ delivery: event.deliveryId, repo: event.repo.fullName, sha });
  const now = deps.clock.now();
  const deadline = new Date(now.getTime() + deps.trackDeadlineSeconds * 1000).toISOString();
  const wanted = message.apps === undefined ? undefined : new Set(message.apps.map((a) => a.cluster));
  const clusters = deps.fleet.clusters
    .map((c) => c.name)
    .filter((n) => wanted === undefined || wanted.has(n));
  // The rollout's records and the Git host's answers (file list, ref head) do not wait for each other: the
  // push's latency is the longer of the two, not their sum. Each side keeps its own order.
  const recorded = async () => {
    await deps.rollouts.start({
      sha,
      repo: event.repo.fullName,
      ref: event.ref,
      trigger: message.trigger,
      receivedAt: event.receivedAt,
      repoUrl: event.repo.webUrl,
      provider: event.provider,
      author: event.author.name,
      commitTitle: event.commitTitle,
      ...(event.commitUrl === undefined ? {} : { commitUrl: event.commitUrl }),
      ...(message.missedWebhook === true ? { missedWebhook: true } : {}),
      deadline,
      pushEvent: storedEvent(event),
    });
    // After the summary exists: the sweep never finds an open rollout it cannot read, and the waves and the
    // planned clusters are written into it.
    await allSettledOrThrow([
      deps.open.open(sha, deadline),
      deps.release?.initWaves(sha),
      deps.rollouts.planClusters(sha, clusters),
    ] as const);
  };
  // A registry push has no Git side: no compare API, no ref head (its file list is known-empty).
  const fromGit = async (): Promise<[ChangedFiles, string | undefined]> =>
    event.image === undefined
      ? allSettledOrThrow([deps.changedFiles(event), refHead(event, deps)] as const)
      : [event.changedFiles, undefined];
  const [, [changedFiles, head]] = await allSettledOrThrow([recorded(), fromGit()] as const);
  const resolved: PushEvent = { ...event, changedFiles };
  await deps.queue.sendBatch(
    clusters.map((cluster) => {
      const item: ClusterWorkMessage = {
        type: 'cluster',
        trigger: message.trigger,
        event: resolved,
        cluster,
        attempt: 0,
        deadline,
        ...(head === undefined ? {} : { head }),
        ...(message.missedWebhook === true ? { missedWebhook: true } : {}),
        ...(message.retry === true ? { retry: true } : {}),
        ...(message.apps === undefined ? {} : { apps: message.apps.filter((a) => a.cluster === cluster) }),
      };
      return { message: item };
    }),
  );
  const supersededBy = head !== undefined && head !== sha ? head : undefined;
  // This push is the ref's newest: the rollout of the commit it moved the ref from stops opening waves.
  if (
    supersededBy === undefined &&
    deps.release !== undefined &&
    !/^0+$/.test(event.before) &&
    event.before !== sha
  ) {
    await deps.release.supersede(event.before, sha);
  }
  log.info('push planned', {
    clusters: clusters.length,
    files: changedFiles.known ? changedFiles.files.length : 'unknown',
    ...(supersededBy === undefined ? {} : { supersededBy }),
  });
  return { clusters, ...(supersededBy === undefined ? {} : { supersededBy }) };
}

/** The push without its file list (which can be tens of thousands of paths): what a release matches on. */
function storedEvent(event: PushEvent): StoredPushEvent {
  const { changedFiles: _files, ...rest } = event;
  return rest;
}

/**
 * Which commit the pushed ref points at now: asked of the Git host where the repository can be read (the
 * truth, whatever order deliveries came in), else judged from the pushes received. Recording this push
 * first lets a later delivery of an older push see that the ref moved on from it.
 */
async function refHead(event: PushEvent, deps: PlanDeps): Promise<string | undefined> {
  const repoKey = canonicalRepoKey(event.repo.webUrl);
  if (repoKey === undefined || event.deleted) return undefined;
  const push = {
    repoKey,
    ref: event.ref,
    before: event.before,
    after: event.after,
    receivedAt: event.receivedAt,
    forced: event.forced,
  };
  // The record and the Git host's answer side by side; only the fallback reads the records.
  const [, remote] = await allSettledOrThrow([
    deps.refPushes.record(push),
    deps.remoteHead?.(event).catch(() => undefined),
  ] as const);
  if (remote !== undefined) return remote;
  return movedOnTo(push, await deps.refPushes.recent(repoKey, event.ref)) ?? event.after;
}
