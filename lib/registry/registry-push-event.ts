import { type PushEvent, ZERO_SHA } from '../webhook/push-event.js';
import { digestHex, imageKey, type RegistryImage } from './registry-event.js';

/** The registry routes: ECR, GHCR (GitHub's `package` event) and Harbor. */
export type RegistryProvider = 'ecr' | 'github' | 'harbor';

/** The EventBridge `source` and `detail-type` of an ECR image push (the delivery's event name). */
export const ECR_SOURCE = 'aws.ecr';
export const ECR_IMAGE_ACTION = 'ECR Image Action';

/**
 * A registry push in the shape of a push event, so the engine plans, records and tracks it as one: the
 * rollout's `after` is the digest's hex, `ref`/`refName` the tag, `repo` the image repository. There is no
 * Git commit, no file list (a known-empty one: no path filter applies) and no parent commit. The webhook
 * builds it from a registry's event, reconcile from an image the registry lists that no event delivered.
 */
export function registryPushEvent(
  provider: RegistryProvider,
  image: RegistryImage,
  meta: Pick<PushEvent, 'deliveryId' | 'receivedAt'>,
): PushEvent {
  const key = imageKey(image);
  return {
    provider,
    deliveryId: meta.deliveryId,
    repo: { fullName: key, webUrl: `oci://${key}`, urls: [] },
    ref: image.tag,
    refType: 'tag',
    refName: image.tag,
    before: ZERO_SHA,
    after: digestHex(image.digest),
    touchedDefaultBranch: false,
    created: false,
    deleted: false,
    forced: false,
    author: { name: provider },
    commitTitle: `${key}:${image.tag}`,
    changedFiles: { known: true, files: [] },
    receivedAt: meta.receivedAt,
    image,
  };
}
