import type { NormalizedPush, ParsedDelivery } from './delivery.js';

interface DeliveryHeader {
  readonly deliveryId: string;
  readonly eventName: string;
}

/** One push: ignored when the ref was deleted (nothing left to refresh). */
export function withDelivery(delivery: DeliveryHeader, push: NormalizedPush): ParsedDelivery {
  if (push.kind === 'ignored') return { ...delivery, ...push };
  if (push.event.deleted) return { ...delivery, kind: 'ignored', reason: 'ref deleted' };
  return { ...delivery, ...push };
}

/**
 * One delivery that changed several refs → one push per ref change. Deleted refs and refs that are
 * neither branches nor tags are dropped. With one change in the payload the delivery keeps its id; with
 * several, change `n` (1-based position in the payload, stable across redeliveries of the same body)
 * is de-duplicated as `{deliveryId}:{n}`, so a redelivery after a partial failure enqueues only what
 * was not enqueued before.
 */
export function deliveryOfChanges(
  delivery: DeliveryHeader,
  changes: readonly NormalizedPush[],
): ParsedDelivery {
  const pushes = changes.flatMap((change, index) =>
    change.kind === 'push' && !change.event.deleted ? [{ event: change.event, position: index + 1 }] : [],
  );
  if (pushes.length === 0) {
    const reasons = changes.map((c) => (c.kind === 'ignored' ? c.reason : 'ref deleted'));
    return { ...delivery, kind: 'ignored', reason: [...new Set(reasons)].join('; ') || 'no ref changes' };
  }
  if (changes.length === 1 && pushes[0] !== undefined) {
    return { ...delivery, kind: 'push', event: pushes[0].event };
  }
  return {
    ...delivery,
    kind: 'pushes',
    events: pushes.map(({ event, position }) => ({
      ...event,
      deliveryId: `${delivery.deliveryId}:${position}`,
    })),
  };
}
