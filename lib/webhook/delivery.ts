import type { RequestedAction } from './github-check-run.js';
import type { PushEvent } from './push-event.js';

/** What the edge knows about a delivery before reading its body. */
export interface DeliveryMeta {
  readonly deliveryId: string;
  /** ISO-8601 time the delivery was received. */
  readonly receivedAt: string;
}

/** What a provider normaliser makes of a push payload. */
export type NormalizedPush =
  | { readonly kind: 'push'; readonly event: PushEvent }
  | { readonly kind: 'ignored'; readonly reason: string };

interface DeliveryHeader {
  readonly deliveryId: string;
  /** The provider's event name (`push`, `Push Hook`, `System Hook`…), for records and logs. */
  readonly eventName: string;
}

/**
 * A verified, well-formed delivery: a push to process, a ping to answer, or something to ignore. A
 * delivery that moved several refs (Bitbucket, Azure DevOps) is `pushes`: one event per ref, each under
 * its own derived delivery id (see `multi-ref.ts`), so each is de-duplicated and enqueued on its own.
 */
export type ParsedDelivery =
  | (DeliveryHeader & { readonly kind: 'push'; readonly event: PushEvent })
  | (DeliveryHeader & { readonly kind: 'pushes'; readonly events: readonly PushEvent[] })
  | (DeliveryHeader & { readonly kind: 'ping' })
  /** A button pressed on a check run (GitHub `check_run` `requested_action`), de-duplicated like a push. */
  | (DeliveryHeader & { readonly kind: 'action'; readonly action: RequestedAction })
  | (DeliveryHeader & { readonly kind: 'ignored'; readonly reason: string });
