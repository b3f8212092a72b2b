import type { AppTarget } from '../rollouts/app-model.js';
import type { Trigger } from '../rollouts/rollout-model.js';
import type { PushEvent } from '../webhook/push-event.js';

/** Webhook (or reconcile) → fanout: one push to plan into one work item per cluster. */
export interface PushMessage {
  readonly type: 'push';
  readonly trigger: Trigger;
  readonly event: PushEvent;
  /** Sent by the scheduled reconciliation for a commit whose webhook never arrived. */
  readonly missedWebhook?: boolean;
  /** Only these objects (the catch-up refreshes the apps that are behind, not the whole repository). */
  readonly apps?: readonly AppTarget[];
  /** Passed on to every work item: `apps` that ended `blocked` or `error` are preflighted again and refreshed. */
  readonly retry?: true;
}

/**
 * Plan → fanout: one push on one cluster. The event carries the resolved file list, so a work item never
 * asks the compare API again. `apps` narrows it to those objects (a catch-up, or a retry of what an earlier
 * attempt could not finish); `attempt` counts the retries of this cluster.
 */
export interface ClusterWorkMessage {
  readonly type: 'cluster';
  readonly trigger: Trigger;
  readonly event: PushEvent;
  readonly cluster: string;
  readonly attempt: number;
  /** The commit the pushed ref points at now, when the plan could tell (an older push is superseded). */
  readonly head?: string;
  readonly missedWebhook?: boolean;
  readonly apps?: readonly AppTarget[];
  /** The rollout's deadline when it was planned (ISO): its retries patch nothing after it. */
  readonly deadline?: string;
  /**
   * Release control: look again at this rollout's `held` apps on this cluster (a wave opened, a pause or
   * freeze lifted, a sync window closed, the rollout was aborted or superseded) and refresh or end each
   * one whose hold no longer applies. The apps come from their records, not from `apps`.
   */
  readonly release?: true;
  /**
   * An operator's (or the catch-up's) retry: apps that ended `blocked`, `error`, `timeout` or `failed` are
   * preflighted again and refreshed.
   */
  readonly retry?: true;
}

/**
 * Release control → fanout: look at the rollout's waves (open the next when its gate passes, halt on
 * failure). Sent delayed for a soak's end; the sweep and every track poll also look.
 */
export interface GateMessage {
  readonly type: 'gate';
  readonly sha: string;
  /** An operator resumed a halted rollout with `skipFailed`: the halted wave passes. */
  readonly skipFailed?: true;
  /** Also look again at the held apps (a resume or an abort lifted what held them). */
  readonly release?: true;
}

/** API → fanout: `gitops-sync unpin` (every pinned app, or those of one repository, canonical key). */
export interface UnpinMessage {
  readonly type: 'unpin';
  readonly repo?: string;
}

/** Fanout → track (and track → itself): one poll of every rollout in flight on one cluster. */
export interface TrackMessage {
  readonly type: 'track';
  readonly cluster: string;
  readonly attempt: number;
  /** The chain this message belongs to (docs/engine.md "Track chains and leases"). */
  readonly chain?: string;
  /**
   * Per rollout (commit) on the cluster, the holder name under which this chain's last poll that took the
   * rollout's lease released it: a poll that finds that holder still the last one knows no one wrote the
   * apps since that poll ended, and writes from its own read.
   */
  readonly leaseHolders?: Readonly<Record<string, string>>;
}

export type FanoutMessage = PushMessage | ClusterWorkMessage | GateMessage | UnpinMessage;
export type QueueMessage = FanoutMessage | TrackMessage;

/** What the queue carries instead of a message too large for it: the body is in the payload store. */
export interface PointerMessage {
  readonly type: 'pointer';
  /** The payload store's key of the original message body. */
  readonly payload: string;
  /** The original message's type, so a consumer can tell what it points at without fetching it. */
  readonly for: string;
}
