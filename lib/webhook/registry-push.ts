import {
  DIGEST,
  digestHex,
  imageKey,
  OCI_TAG,
  REPOSITORY_PATH,
  type RegistryImage,
} from '../registry/registry-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { wrongType } from './payload-fields.js';
import { type PushEvent, ZERO_SHA } from './push-event.js';

/** The registry routes: ECR, GHCR (GitHub's `package` event) and Harbor. */
export type RegistryProvider = 'ecr' | 'github' | 'harbor';

/**
 * A registry push in the shape of a push event, so the engine plans, records and tracks it as one: the
 * rollout's `after` is the digest's hex, `ref`/`refName` the tag, `repo` the image repository. There is no
 * Git commit, no file list (a known-empty one: no path filter applies) and no parent commit.
 */
export function registryPushEvent(
  provider: RegistryProvider,
  image: RegistryImage,
  meta: DeliveryMeta,
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

/** A registry push to normalise into, authored by who pushed it when the registry names them. */
export function registryPush(
  provider: RegistryProvider,
  image: RegistryImage,
  meta: DeliveryMeta,
  pushedBy?: string,
): NormalizedPush {
  const event = registryPushEvent(provider, image, meta);
  return { kind: 'push', event: pushedBy === undefined ? event : { ...event, author: { name: pushedBy } } };
}

/** An image repository path as a registry names it (400 naming `field` when it is not one). */
export function requireRepositoryPath(path: string, field: string, what: string): string {
  if (path.length > 256 || !REPOSITORY_PATH.test(path)) throw wrongType(field, what);
  return path;
}

/** A manifest digest, lowercased (400 naming `field` when it is not `sha256:<hex>`). */
export function requireDigest(digest: string, field: string): string {
  const lower = digest.toLowerCase();
  if (!DIGEST.test(lower)) throw wrongType(field, 'a sha256 digest');
  return lower;
}

/** An OCI tag (400 naming `field` when it is not one). */
export function requireImageTag(tag: unknown, field: string): string {
  if (typeof tag !== 'string' || !OCI_TAG.test(tag)) throw wrongType(field, 'an image tag');
  return tag;
}
