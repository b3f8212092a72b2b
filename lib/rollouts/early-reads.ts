import type { FleetCluster } from '../fleet/gateway.js';
import type { FleetObject } from '../matching/match-index.js';
import type { ClusterWorkMessage } from '../queue/messages.js';
import type { HoldContext } from '../release/holds.js';
import type { ClusterWorkDeps } from './work-model.js';

// What a work item reads of its cluster and rollout before it decides: the cluster's listing (every kind,
// every page), and which of those reads may start before the cluster's lease is held.

/** Reads a work item starts while it takes the cluster's lease (see `readEarly`). */
export interface EarlyReads {
  readonly holds?: Promise<HoldContext>;
  /** The cluster's listing, for a first holder only (undefined when not started). */
  readonly objects?: Promise<FleetObject[]>;
}

/**
 * Release control's state of the rollout, and for the plan's own work item (attempt 0, neither a release
 * nor a retry: almost always the commit's first holder on the cluster) the cluster's listing, started
 * beside the lease's take instead of after it: two round trips less before the first PATCH. The listing is
 * used only if the lease turns out to be the first one (no holder can have written a record of the commit
 * on the cluster while it was read); any other holder lists again under the lease.
 */
export function readEarly(
  cluster: FleetCluster,
  message: ClusterWorkMessage,
  deps: ClusterWorkDeps,
): EarlyReads {
  const deadline = message.deadline === undefined ? Number.NaN : Date.parse(message.deadline);
  const planned =
    message.attempt === 0 && message.release !== true && message.retry !== true && !(Date.now() >= deadline);
  const holds = deps.holdContext?.(message.event.after, cluster.name);
  const objects = planned ? listCluster(cluster) : undefined;
  // Unused when the lease is not held (or not the first): their failures are nobody's.
  holds?.catch(() => undefined);
  objects?.catch(() => undefined);
  return { ...(holds === undefined ? {} : { holds }), ...(objects === undefined ? {} : { objects }) };
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
