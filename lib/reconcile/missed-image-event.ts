import type { DeliveryRecord } from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import type { RegistryImage } from '../registry/registry-event.js';
import { ECR_IMAGE_ACTION, registryPushEvent } from '../registry/registry-push-event.js';
import { imageDeliveryId } from '../registry/registry-scope.js';

/**
 * The delivery an ECR push event lost on the way would have been, as the webhook records and enqueues it
 * (`handle-webhook.ts`): the same provider, the same delivery id (the digest and tag) and the same queue
 * de-duplication id, so a pass and a late EventBridge event of one image are one delivery and one
 * rollout. Only the event's own id says it came from a pass.
 */
export function missedImageDelivery(
  image: RegistryImage,
  now: Date,
): { readonly record: DeliveryRecord; readonly message: PushMessage; readonly deduplicationId: string } {
  const deliveryId = imageDeliveryId(image);
  const event = registryPushEvent('ecr', image, {
    deliveryId: `reconcile:${deliveryId}`,
    receivedAt: now.toISOString(),
  });
  return {
    record: {
      provider: 'ecr',
      deliveryId,
      event: ECR_IMAGE_ACTION,
      repo: event.repo.webUrl,
      ref: event.ref,
      sha: event.after,
      receivedAt: event.receivedAt,
    },
    message: { type: 'push', trigger: 'registry', event },
    deduplicationId: `ecr:${deliveryId}`,
  };
}
