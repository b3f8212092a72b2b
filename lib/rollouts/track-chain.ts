/**
 * A cluster's track chain, the poll's side (lib/rollouts/track.ts polls): the chain's lease read and renewed
 * at the start of a poll only when it must be, the backoff to the next poll, and the next poll enqueued or,
 * with nothing left to follow, the lease released (docs/engine.md, track chains and leases).
 */
import type { Clock, Queue } from '../ports.js';
import type { TrackMessage } from '../queue/messages.js';
import type { ChainLease, ClusterTrackers, TrackedRollout } from './ports/cluster-trackers.js';

/** What the chain's steps use of the track function's dependencies. */
export interface ChainDeps {
  readonly trackers: ClusterTrackers;
  readonly queue: Queue<TrackMessage>;
  readonly clock: Clock;
  readonly intervalSeconds: number;
  readonly maxIntervalSeconds: number;
  readonly chainLeaseSeconds: number;
}

const leaseUntil = (now: Date, deps: Pick<ChainDeps, 'chainLeaseSeconds'>) =>
  new Date(now.getTime() + deps.chainLeaseSeconds * 1000).toISOString();

/** The track function's timeout (serverless.yml): no poll outlasts it. */
const POLL_BUDGET_SECONDS = 60;

/** What a poll starts from: its chain, the cluster's registrations, and the chain item as read (if read). */
export interface StartedPoll {
  readonly chain: string;
  readonly registered: readonly TrackedRollout[];
  readonly seen?: ChainLease;
}

/**
 * The poll's chain and the cluster's registrations, or undefined when another chain holds the cluster. One
 * read gives both; the lease is renewed (a write conditional on the chain) only when the read does not show
 * it ours, renewed since its claim, and lasting past this poll and the next one's start.
 */
export async function startPoll(
  message: TrackMessage,
  now: Date,
  deps: ChainDeps,
): Promise<StartedPoll | undefined> {
  const { cluster } = message;
  const read = await deps.trackers.read?.(cluster);
  if (read === undefined) {
    const chain = await deps.trackers.renewChain(cluster, message.chain, leaseUntil(now, deps));
    return chain === undefined ? undefined : { chain, registered: await deps.trackers.list(cluster) };
  }
  const held = read.chain;
  const seen = held ?? { polled: false };
  if (message.chain !== undefined && held?.chain !== undefined && held.chain !== message.chain)
    return undefined;
  const needed = now.getTime() + (nextDelaySeconds(read.registered, now, deps) + POLL_BUDGET_SECONDS) * 1000;
  const lasts = Date.parse(held?.leaseUntil ?? '') >= needed;
  if (message.chain !== undefined && held?.chain === message.chain && held.polled && lasts) {
    return { chain: message.chain, registered: read.registered, seen };
  }
  const chain = await deps.trackers.renewChain(cluster, message.chain, leaseUntil(now, deps));
  return chain === undefined ? undefined : { chain, registered: read.registered, seen };
}

/** The backoff from the youngest rollout's age. */
function nextDelaySeconds(
  registered: readonly TrackedRollout[],
  now: Date,
  deps: Pick<ChainDeps, 'intervalSeconds' | 'maxIntervalSeconds'>,
) {
  const youngest = Math.max(0, ...registered.map((r) => Date.parse(r.addedAt) || 0));
  const ageSeconds = Math.max(0, (now.getTime() - youngest) / 1000);
  return Math.round(Math.min(deps.maxIntervalSeconds, Math.max(deps.intervalSeconds, ageSeconds / 4)));
}

/**
 * The next poll, with backoff from the youngest rollout's age; or, with nothing left, the chain's lease is
 * released. A rollout registered meanwhile is never left unpolled: its claim stamped the chain item, and the
 * release is conditional on the stamp the poll read (`seen`), so the chain goes on instead. Without the
 * poll's read of the chain item, the registrations are read again after the release.
 */
export async function continueChain(
  message: TrackMessage & { readonly chain: string },
  registered: readonly TrackedRollout[],
  left: number,
  deps: ChainDeps,
  seen?: ChainLease,
): Promise<boolean> {
  const { cluster } = message;
  let { chain } = message;
  // `left`: the registrations this poll did not drop.
  if (left === 0) {
    if (seen !== undefined) {
      // Lost: a claim since (the next poll sees its rollout) or another chain's (the next poll stops).
      if (await deps.trackers.releaseChain(cluster, chain, seen)) return false;
    } else {
      await deps.trackers.releaseChain(cluster, chain);
      if ((await deps.trackers.list(cluster)).length === 0) return false;
      const now = deps.clock.now();
      const claimed = await deps.trackers.claimChain(cluster, leaseUntil(now, deps), now);
      if (claimed === undefined) return false;
      chain = claimed;
    }
  }
  const delaySeconds = nextDelaySeconds(registered, deps.clock.now(), deps);
  const { leaseHolders } = message;
  const holders =
    leaseHolders === undefined || Object.keys(leaseHolders).length === 0 ? {} : { leaseHolders };
  await deps.queue.send(
    { type: 'track', cluster, attempt: message.attempt + 1, chain, ...holders },
    { delaySeconds },
  );
  return true;
}
