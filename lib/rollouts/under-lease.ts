import { randomUUID } from 'node:crypto';
import type { ClusterLeases, HeldLease } from './ports/cluster-leases.js';

export type LeaseOutcome<T> =
  | { readonly held: true; readonly value: T }
  | { readonly held: false; readonly untilMs: number; readonly holder?: string };

/**
 * Runs `work` while holding the commit's lease on `cluster` (always released after, even when `work`
 * throws, unless `work` says it released it), or tells until when another holder has it, and who
 * (`<who>#<uuid>`). `who` names the holder in the lease item.
 */
export async function underLease<T>(
  leases: ClusterLeases,
  lease: {
    readonly sha: string;
    readonly cluster: string;
    readonly who: string;
    readonly untilMs: number;
    /** The holder's name, `<who>#<id>`, when the caller chose it (default: a new id). */
    readonly holder?: string;
  },
  work: (held: HeldLease) => Promise<T>,
): Promise<LeaseOutcome<T>> {
  const holder = lease.holder ?? `${lease.who}#${randomUUID()}`;
  const taken = await leases.acquire(lease.sha, lease.cluster, holder, lease.untilMs);
  if (!taken.held) return taken;
  let released = false;
  try {
    return {
      held: true,
      value: await work({
        holder,
        first: taken.first,
        expiresAt: taken.expiresAt,
        ...(taken.previous === undefined ? {} : { previous: taken.previous }),
        released: () => {
          released = true;
        },
      }),
    };
  } finally {
    if (!released) await leases.release(lease.sha, lease.cluster, holder);
  }
}
