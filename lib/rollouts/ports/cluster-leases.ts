/** One work item at a time per commit and cluster (the lease runs out when its holder's invocation ends). */
export interface ClusterLeases {
  /**
   * Takes the lease, or says until when another holder has it. `first`: no one has held this commit's lease
   * on this cluster before (no lease item was there), so nothing of the commit is recorded on the cluster
   * yet: every record and decision of it is written by a holder. `expiresAt` (epoch seconds): the lease
   * item's expiry, which a holder releasing the lease in its own batch keeps. `previous`: the holder that
   * released the lease taken over (absent when there was none, or when it ran out instead).
   */
  acquire(
    sha: string,
    cluster: string,
    holder: string,
    untilMs: number,
  ): Promise<
    | {
        readonly held: true;
        readonly first: boolean;
        readonly expiresAt: number;
        readonly previous?: string;
      }
    | { readonly held: false; readonly untilMs: number; readonly holder?: string }
  >;
  release(sha: string, cluster: string, holder: string): Promise<void>;
}

/** What work under a lease is told of it (lib/rollouts/under-lease.ts). */
export interface HeldLease {
  readonly holder: string;
  /** The first holder of this commit's lease on the cluster: nothing of the commit is recorded there. */
  readonly first: boolean;
  /** The lease item's expiry (epoch seconds), for a release written in the holder's own batch. */
  readonly expiresAt: number;
  /**
   * The holder that released the lease this one took over (absent: none, or it ran out). When that is a
   * holder whose work is known to have ended before what this one read (a track chain's previous poll), no
   * one wrote under the lease in between: what was read before taking it is still what is stored.
   */
  readonly previous?: string;
  /** The work released the lease itself (in the last request of its writes): no release after it. */
  released(): void;
}
