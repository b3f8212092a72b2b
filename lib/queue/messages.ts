import type { AppTarget, Trigger } from '../rollouts/model.js';
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
}

/** Fanout → track (and track → itself): one poll of every rollout in flight on one cluster. */
export interface TrackMessage {
  readonly type: 'track';
  readonly cluster: string;
  readonly attempt: number;
}

export type FanoutMessage = PushMessage | ClusterWorkMessage;
export type QueueMessage = FanoutMessage | TrackMessage;
