import type { Trigger } from '../rollouts/model.js';
import type { PushEvent } from '../webhook/push-event.js';

/** Webhook → fanout: one push to match, preflight and refresh across the fleet. */
export interface PushMessage {
  readonly type: 'push';
  readonly trigger: Trigger;
  readonly event: PushEvent;
  /** Only these clusters (a retry of clusters that could not be listed); absent: the whole fleet. */
  readonly clusters?: readonly string[];
  /** Retries of unreadable clusters so far. */
  readonly attempt?: number;
  /** Sent by the scheduled reconciliation for a commit whose webhook never arrived. */
  readonly missedWebhook?: boolean;
}

/** Fanout → track (and track → itself): follow one rollout until every app ends or the deadline passes. */
export interface TrackMessage {
  readonly type: 'track';
  readonly sha: string;
  /** ISO time after which unfinished apps become `timeout`. */
  readonly deadline: string;
  readonly attempt: number;
}

export type QueueMessage = PushMessage | TrackMessage;

/** What the queue carries instead of a message too large for it: the body is in the payload store. */
export interface PointerMessage {
  readonly type: 'pointer';
  /** The payload store's key of the original message body. */
  readonly payload: string;
  /** The original message's type, so a consumer can tell what it points at without fetching it. */
  readonly for: string;
}
