import { randomUUID } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { TrackMessage } from '../queue/messages.js';
import type { StoredApp, TargetKind } from './app-model.js';
import type { AppStateWriter, AppTransitions, SyncedSummary } from './ports/app-state.js';
import type { ClusterLeases } from './ports/cluster-leases.js';
import type { ClusterTrackers, TrackedRollout } from './ports/cluster-trackers.js';
import type { RefPushes } from './ports/ref-pushes.js';
import type { RolloutReader } from './ports/rollout-reader.js';
import { registryAliases } from './registry-revisions.js';
import { isInFlight } from './state-model.js';
import { continueChain, type StartedPoll, startPoll } from './track-chain.js';
import { decideApp, type LiveView, type OnEnd } from './track-decide.js';
import { pollLookups } from './track-lookups.js';
import { type WriteContext, type WriteOutcome, writeChanges } from './track-writes.js';

export interface LiveLister {
  /** One LIST per kind on the cluster (every page), keyed by `liveKey(kind, namespace, name)`. */
  listTargets(cluster: string, kinds: readonly TargetKind[]): Promise<ReadonlyMap<string, unknown>>;
}

export { liveKey } from './track-lookups.js';

export interface TrackDeps {
  readonly rollouts: Pick<RolloutReader, 'listApps' | 'summary'> & AppStateWriter & Partial<AppTransitions>;
  /** Every write of a poll is under this lease; with `transitionMany`, 3+ changes go out in batches. */
  readonly leases?: ClusterLeases;
  readonly trackers: ClusterTrackers;
  readonly refPushes: Pick<RefPushes, 'recent'>;
  readonly live: LiveLister;
  /** Runs once when an app ends (the ExternalSecret post-sync check); returns fields to record with the end. */
  readonly onEnd?: OnEnd;
  /** Keeps the commit's Slack message current; never throws. */
  readonly notify: (sha: string) => Promise<void>;
  /** Release control looks at the rollout's waves after its apps changed (never throws). */
  readonly gate?: (sha: string, summary: SyncedSummary | undefined) => Promise<unknown>;
  readonly queue: Queue<TrackMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalSeconds: number;
  readonly maxIntervalSeconds: number;
  readonly chainLeaseSeconds: number;
}

export interface TrackResult {
  readonly rollouts: number;
  readonly changed: number;
  readonly unfinished: number;
  readonly requeued: boolean;
  /** The message's chain had lost the cluster's lease to another: nothing was polled. */
  readonly superseded?: true;
}

/**
 * One poll of one cluster: every rollout in flight on it is read from one LIST per kind, however many
 * there are. The apps' state changes are written (forward only, each at the version it was decided on,
 * under the rollout's lease on the cluster: lib/rollouts/track-writes.ts), each
 * touched rollout's summary re-derived and its Slack message updated, and the next poll enqueued with
 * backoff while anything is in flight. A rollout past its deadline turns its unfinished apps to `timeout`.
 * A message of a chain that lost the cluster's chain lease stops before reading anything (docs/engine.md).
 */
export async function trackCluster(message: TrackMessage, deps: TrackDeps): Promise<TrackResult> {
  const { cluster } = message;
  const log = deps.logger.child({ cluster, attempt: message.attempt });
  const now = deps.clock.now();
  const started = await startPoll(message, now, deps);
  if (started === undefined) {
    // Another chain holds the cluster (the sweep started one while this message was invisible): stop.
    log.info('track chain superseded, stopping', { chain: message.chain ?? 'unnamed' });
    return { rollouts: 0, changed: 0, unfinished: 0, requeued: false, superseded: true };
  }
  // This poll may write each registered rollout's view: polls side by side wait for it and write theirs with
  // it (one summary update). Said done per rollout as its turn ends, and for all of them if the poll fails.
  const leaves = new Map<string, () => void>(
    started.registered.map((r) => [r.sha, deps.rollouts.expectView?.(r.sha, cluster) ?? (() => undefined)]),
  );
  try {
    return await pollRegistered(message, started, leaves, now, deps, log);
  } finally {
    for (const leave of leaves.values()) leave();
  }
}

async function pollRegistered(
  message: TrackMessage,
  { chain, registered, seen }: StartedPoll,
  leaves: ReadonlyMap<string, () => void>,
  now: Date,
  deps: TrackDeps,
  log: Logger,
): Promise<TrackResult> {
  const { cluster } = message;
  // One holder name for every rollout lease this poll takes; the next poll is told it per rollout.
  const holder = `track#${randomUUID()}`;
  const leaseHolders: Record<string, string> = {};
  const polls = await Promise.all(
    registered.map(async (r) => ({
      registration: r,
      summary: await deps.rollouts.summary(r.sha),
      apps: await deps.rollouts.listApps(r.sha, cluster),
    })),
  );
  const open = polls.filter((p) => p.apps.some((a) => isInFlight(a.state)));
  const kinds = new Set(open.flatMap((p) => p.apps.filter((a) => isInFlight(a.state)).map((a) => a.kind)));
  const live = await readLive(cluster, [...kinds], deps, log);
  const { headOf, ownedLater } = pollLookups(cluster, deps);

  let changed = 0;
  let unfinished = 0;
  let dropped = 0;
  const ended: TrackedRollout[] = [];
  // Every poll takes its rollouts in one order (by commit): a poll waiting for another's view of a rollout
  // waits only for polls still before it in that order, so the waits never go round in a circle.
  polls.sort((a, b) => (a.registration.sha < b.registration.sha ? -1 : 1));
  for (const poll of polls) {
    const { sha } = poll.registration;
    const deadline = poll.summary?.deadline;
    const pastDeadline = deadline !== undefined && now.getTime() >= Date.parse(deadline);
    // Read only if an app is at neither the pushed commit nor none (most polls: every app is at the commit).
    let read: Promise<string | undefined> | undefined;
    const head = () => {
      read ??= headOf(poll.summary);
      return read;
    };
    const ref = poll.summary?.ref;
    const aliases = registryAliases(
      poll.summary?.repoUrl,
      sha,
      poll.summary?.refs ?? (ref === undefined ? [] : [ref]),
    );
    const lastHolder = message.leaseHolders?.[sha];
    const context = {
      sha,
      holder,
      ...(lastHolder === undefined ? {} : { read: { apps: poll.apps, lastHolder } }),
      pastDeadline,
      now,
      live,
      head,
      deps,
      ownedLater,
      ...(ref === undefined ? {} : { ref }),
      ...(aliases === undefined ? {} : { aliases }),
    };
    const written = await applyChanges(poll.apps, context, cluster);
    const { updated } = written;
    changed += updated;
    if (written.leased === true) leaseHolders[sha] = holder;
    else if (lastHolder !== undefined) leaseHolders[sha] = lastHolder;
    // The apps as the writes left them (the batch's own, or read once), which the summary's view is made of.
    const left = updated > 0 ? (written.after ?? (await deps.rollouts.listApps(sha, cluster))) : poll.apps;
    const open = left.filter((a) => isInFlight(a.state)).length;
    unfinished += open;
    if (updated > 0) {
      const summary = await deps.rollouts.syncSummary(sha, cluster, left);
      await deps.gate?.(sha, summary);
    } else if (poll.summary === undefined) await deps.rollouts.syncSummary(sha, cluster);
    if (updated > 0) await deps.notify(sha);
    leaves.get(sha)?.();
    if (open === 0) ended.push(poll.registration);
  }
  // Every rollout on the cluster ended: their registrations go with the chain's lease, in one write at the
  // chain item as read (a registration since keeps the chain and every registration; they are dropped below).
  const endsAll = unfinished === 0 && ended.length === registered.length;
  if (endsAll && seen !== undefined && (await deps.trackers.endChain?.(cluster, chain, seen, ended))) {
    log.info('cluster polled', { rollouts: polls.length, changed, unfinished, requeued: false });
    return { rollouts: polls.length, changed, unfinished, requeued: false };
  }
  for (const registration of ended) {
    // A registration made since we listed (a new delivery of this commit) keeps it: the next poll sees it.
    if (await deps.trackers.unregister(cluster, registration)) {
      dropped += 1;
      delete leaseHolders[registration.sha];
    }
  }
  const left = unfinished > 0 ? registered.length : registered.length - dropped;
  const requeued = await continueChain({ ...message, chain, leaseHolders }, registered, left, deps, seen);
  log.info('cluster polled', { rollouts: polls.length, changed, unfinished, requeued });
  return { rollouts: polls.length, changed, unfinished, requeued };
}

async function readLive(
  cluster: string,
  kinds: TargetKind[],
  deps: TrackDeps,
  log: Logger,
): Promise<LiveView> {
  if (kinds.length === 0) return { objects: new Map() };
  try {
    return { objects: await deps.live.listTargets(cluster, kinds) };
  } catch (error) {
    const reason = errorMessage(error);
    log.warn('cluster unreadable this poll', { error: reason });
    return { objects: new Map(), error: `cannot read cluster ${cluster}: ${reason}` };
  }
}

interface ApplyContext {
  readonly sha: string;
  readonly holder: string;
  readonly read?: WriteContext['read'];
  readonly pastDeadline: boolean;
  readonly now: Date;
  readonly live: LiveView;
  readonly head: () => Promise<string | undefined>;
  readonly deps: TrackDeps;
  readonly ref?: string;
  readonly ownedLater: (later: string, app: StoredApp) => Promise<boolean>;
  readonly aliases?: ReadonlySet<string>;
}

/**
 * Decides each unfinished app's change and writes them (lib/rollouts/track-writes.ts). `after`: the
 * cluster's apps once written, when the batch under the lease wrote every change.
 */
async function applyChanges(
  apps: readonly StoredApp[],
  context: ApplyContext,
  cluster: string,
): Promise<WriteOutcome> {
  const { sha, deps } = context;
  // An app still `matched` is fan-out's (claimed, not yet patched): only the deadline takes it from there.
  // A `held` app waits for release control, whatever Argo CD does meanwhile.
  const followed = (a: StoredApp) => isInFlight(a.state) && (a.state !== 'matched' || context.pastDeadline);
  const decided = await Promise.all(
    apps.filter(followed).map(async (app) => ({ app, change: await decideApp(app, context) })),
  );
  return writeChanges(
    decided.flatMap(({ app, change }) => (change === undefined ? [] : [{ app, change }])),
    {
      sha,
      cluster,
      holder: context.holder,
      ...(context.read === undefined ? {} : { read: context.read }),
      rollouts: deps.rollouts,
      ...(deps.leases === undefined ? {} : { leases: deps.leases }),
      logger: deps.logger,
      decide: (app) => decideApp(app, context),
      followed,
    },
  );
}
