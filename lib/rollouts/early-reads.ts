import type { FleetCluster } from '../fleet/gateway.js';
import type { FleetObject } from '../matching/match-index.js';
import type { ClusterWorkMessage } from '../queue/messages.js';
import type { HoldContext } from '../release/holds.js';
import { rolloutDeadlinePassed } from './app-budget.js';
import type { ClusterWorkDeps } from './work-model.js';

// What a work item reads of its cluster and rollout before it decides: the cluster's listing (every kind,
// every page), and which of those reads may start before the cluster's lease is held.

/** Reads a work item starts while it takes the cluster's lease (see `readEarly`). */
export interface EarlyReads {
  readonly holds?: Promise<HoldContext>;
  /**
   * The cluster's listing started early (undefined when none was), handed out once: the reads keep no hold
   * on it after, so a listing let go is garbage (a hub's listing is large).
   */
  takeListing(): Promise<FleetObject[]> | undefined;
}

/**
 * Release control's state of the rollout, and for the plan's own work item (attempt 0, neither a release
 * nor a retry: almost always the commit's first holder on the cluster) the cluster's listing, started
 * beside the lease's take instead of after it: two round trips less before the first PATCH. The listing is
 * used only if the lease turns out to be the first one (no holder can have written a record of the commit
 * on the cluster while it was read); any other holder lists again under the lease (`listUnderLease`).
 */
export function readEarly(
  cluster: FleetCluster,
  message: ClusterWorkMessage,
  deps: ClusterWorkDeps,
): EarlyReads {
  const planned =
    message.attempt === 0 &&
    message.release !== true &&
    message.retry !== true &&
    !rolloutDeadlinePassed(message);
  const holds = deps.holdContext?.(message.event.after, cluster.name);
  let objects = planned ? listCluster(cluster) : undefined;
  // Unused when the lease is not held (or not the first): their failures are nobody's.
  holds?.catch(() => undefined);
  objects?.catch(() => undefined);
  return {
    ...(holds === undefined ? {} : { holds }),
    takeListing() {
      const taken = objects;
      objects = undefined;
      return taken;
    },
  };
}

/**
 * The listing a lease holder decides from: the early one for the commit's first holder, else a new one
 * read under the lease, once the early one (if any) has ended and been let go: two listings of a large hub
 * at once would double the work item's memory.
 */
export async function listUnderLease(
  cluster: FleetCluster,
  early: EarlyReads | undefined,
  first: boolean,
): Promise<FleetObject[]> {
  const started = early?.takeListing();
  if (started !== undefined) {
    if (first) return started;
    await started.then(
      () => undefined,
      () => undefined,
    );
  }
  return listCluster(cluster);
}

/** Every object of the kinds the cluster runs, as fan-out's refresh view reads them. */
export async function listCluster(cluster: FleetCluster): Promise<FleetObject[]> {
  const lists = await Promise.all(
    cluster.kinds.map(async (kind) =>
      (await cluster.list(kind, 'refresh')).map((raw): FleetObject => ({ cluster: cluster.name, kind, raw })),
    ),
  );
  return lists.flat();
}
