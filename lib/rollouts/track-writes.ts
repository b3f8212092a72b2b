import type { Logger } from '../ports.js';
import type { StoredApp } from './app-model.js';
import type {
  AppChange,
  AppStateWriter,
  AppTransitions,
  TransitionWrite,
  ViewedApp,
} from './ports/app-state.js';
import type { ClusterLeases, HeldLease } from './ports/cluster-leases.js';
import type { RolloutReader } from './ports/rollout-reader.js';
import { underLease } from './under-lease.js';

export interface WriteContext {
  readonly sha: string;
  readonly cluster: string;
  readonly rollouts: Pick<RolloutReader, 'listApps'> &
    Pick<AppStateWriter, 'transition'> &
    Partial<AppTransitions>;
  readonly leases?: ClusterLeases;
  readonly logger: Logger;
  /** The change an app gets now: what an app written by someone else since it was read is decided on again. */
  readonly decide: (app: StoredApp) => Promise<AppChange | undefined>;
  /** Whether track still follows the app (one read again may have left its hands meanwhile). */
  readonly followed: (app: StoredApp) => boolean;
  /** The poll's name as the lease's holder (`track#<id>`), the same for every rollout it writes. */
  readonly holder?: string;
  /**
   * The cluster's apps as the poll read them, and the holder whose release of the lease means no one wrote
   * them since (the chain's previous poll that held it: its work ended before this poll began).
   */
  readonly read?: { readonly apps: readonly StoredApp[]; readonly lastHolder: string };
}

export interface WriteOutcome {
  readonly updated: number;
  /** The cluster's apps once written, when a batch under the lease wrote every change. */
  readonly after?: readonly ViewedApp[];
  /** Changes left to the next poll: another track poll held the cluster and may be putting a batch. */
  readonly deferred?: number;
  /** The poll held the rollout's lease on the cluster (as `WriteContext.holder`) and released it. */
  readonly leased?: true;
}

/** From this many changes a batch (one read, 25 puts a request) costs fewer requests than one write each. */
export const BATCH_FROM = 3;

/** Holder names in the lease item are `<who>#<uuid>`: a track poll's, the sweep's or a work item's. */
const TRACK = 'track';

/**
 * A poll's changes to one rollout's apps on one cluster, each applied only at the version it was decided
 * on and never moving a state back. They are written while the poll holds the rollout's lease on the
 * cluster, so a batch (BatchWriteItem carries no condition) cannot land on a change another writer made
 * after the batch's read: every writer of those app items either holds the lease or writes conditionally,
 * and only a lease holder batches. When a fan-out work item or the sweep holds the lease (neither
 * batches), each change is its own conditional write beside them; when another track poll holds it, the
 * changes wait for the next poll instead of racing its batch. A lost condition reads the app again and
 * decides it once more.
 */
export async function writeChanges(
  decided: readonly { readonly app: StoredApp; readonly change: AppChange }[],
  context: WriteContext,
): Promise<WriteOutcome> {
  const writes = decided.map(({ app, change }) => ({ target: app, change, expectedVersion: app.version }));
  if (writes.length === 0) return { updated: 0 };
  const { leases, sha, cluster } = context;
  if (leases === undefined) return writeEach(writes, context);
  const untilMs = Date.now() + 60_000;
  const named = context.holder === undefined ? {} : { holder: context.holder };
  const lease = await underLease(leases, { sha, cluster, who: TRACK, untilMs, ...named }, (held) =>
    writeHeld(writes, context, held),
  );
  if (lease.held) return { ...lease.value, leased: true };
  if (lease.holder?.startsWith(`${TRACK}#`) === true) {
    context.logger.info('changes left to the next poll: another track poll holds the cluster', {
      sha,
      changes: writes.length,
    });
    return { updated: 0, deferred: writes.length };
  }
  return writeEach(writes, context);
}

/**
 * Under the lease: a batch when there are enough changes and a batch writer, else one write each. A batch
 * with nothing left to write after it releases the lease in its last request.
 */
async function writeHeld(
  writes: readonly TransitionWrite[],
  context: WriteContext,
  held: HeldLease,
): Promise<WriteOutcome> {
  const many = context.rollouts.transitionMany;
  if (many === undefined || writes.length < BATCH_FROM) return writeEach(writes, context);
  // No one held the lease since the poll's read (its last holder is the chain's previous poll): the batch
  // starts from that read instead of reading the apps again.
  const { read } = context;
  const current = read !== undefined && held.previous === read.lastHolder ? read.apps : undefined;
  const batched = await many(context.sha, context.cluster, writes, held, current);
  if (batched.released === true) held.released();
  if (batched.conflicts.length === 0) return { updated: batched.updated, after: batched.apps };
  return { updated: batched.updated + (await decideAgain(batched.conflicts, context)) };
}

async function writeEach(writes: readonly TransitionWrite[], context: WriteContext): Promise<WriteOutcome> {
  let updated = 0;
  const conflicted: TransitionWrite['target'][] = [];
  await Promise.all(
    writes.map(async ({ target, change, expectedVersion }) => {
      const result = await context.rollouts.transition(context.sha, target, change, expectedVersion);
      if (result === 'updated') updated += 1;
      else conflicted.push(target);
    }),
  );
  return { updated: updated + (await decideAgain(conflicted, context)) };
}

/** Apps someone wrote since they were read: read once more and decided again, one conditional write each. */
async function decideAgain(conflicts: readonly TransitionWrite['target'][], context: WriteContext) {
  if (conflicts.length === 0) return 0;
  const key = (a: TransitionWrite['target']) => `${a.kind}/${a.namespace}/${a.name}`;
  const again = new Map(
    (await context.rollouts.listApps(context.sha, context.cluster)).map((a) => [key(a), a]),
  );
  let updated = 0;
  for (const target of conflicts) {
    const fresh = again.get(key(target));
    if (fresh === undefined || !context.followed(fresh)) continue;
    const change = await context.decide(fresh);
    if (change === undefined) continue;
    if ((await context.rollouts.transition(context.sha, fresh, change, fresh.version)) === 'updated')
      updated += 1;
  }
  return updated;
}
