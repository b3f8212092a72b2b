/** A rollout registered for tracking on one cluster; `adds` is new on every registration. */
export interface TrackedRollout {
  readonly sha: string;
  readonly adds: number;
  readonly addedAt: string;
  /** Registered by an earlier version (an item of its own, not on the chain item): dropped on its own. */
  readonly legacy?: true;
}

/**
 * One polling chain per cluster. Fan-out registers the rollout as it claims the chain (undefined: a chain
 * is alive and will see it; else the new chain's id, carried by its messages). Track drops a registration
 * only at the `adds` it saw. A poll renews the lease only for its own chain: a message of a chain that lost
 * the lease (redelivered after the sweep started another) gets undefined and stops. A message without a
 * chain id (the first of a claim that did not pass it on) adopts the claim once, under an id of its own.
 */
export interface ClusterTrackers {
  /** Registers the rollout without claiming the chain (marks it touched, so its end sees the rollout). */
  register(cluster: string, sha: string, now: Date): Promise<void>;
  list(cluster: string): Promise<readonly TrackedRollout[]>;
  unregister(cluster: string, rollout: TrackedRollout): Promise<boolean>;
  /**
   * Claims a free chain (its id) or, with a live one, marks it touched so its end sees the registration;
   * with `sha`, registers that rollout in the same write.
   */
  claimChain(cluster: string, until: string, now: Date, sha?: string): Promise<string | undefined>;
  renewChain(cluster: string, chain: string | undefined, until: string): Promise<string | undefined>;
  /**
   * Releases the chain's lease; with `seen` (the chain item as the poll read it) only if no claim touched it
   * since. False: the chain is not ours any more, or a claim since means a rollout the poll has not seen.
   */
  releaseChain(cluster: string, chain: string, seen?: ChainLease): Promise<boolean>;
  /**
   * The poll that ends the chain: drops `rollouts` (every registration it read) and releases the lease in
   * one write, only if no claim or registration touched the chain since `seen`. False: nothing was written
   * (a rollout the poll has not seen, another chain's lease, or registrations this write cannot drop).
   */
  endChain?(
    cluster: string,
    chain: string,
    seen: ChainLease,
    rollouts: readonly TrackedRollout[],
  ): Promise<boolean>;
  /**
   * The chain item and the registrations in one read (what a poll starts from): a poll whose chain the
   * item names, already polled and with lease enough left, need not renew it.
   */
  read?(
    cluster: string,
  ): Promise<{ readonly chain?: ChainLease; readonly registered: readonly TrackedRollout[] }>;
}

/** The chain item as read: who owns the chain, until when, and whether a poll has renewed it since its claim. */
export interface ChainLease {
  readonly chain?: string;
  readonly leaseUntil?: string;
  readonly polled: boolean;
  /** Stamped by every claim, won or not (a registration was made). */
  readonly touched?: string;
}
