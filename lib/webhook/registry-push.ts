import { DIGEST, OCI_TAG, REPOSITORY_PATH, type RegistryImage } from '../registry/registry-event.js';
import { type RegistryProvider, registryPushEvent } from '../registry/registry-push-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { wrongType } from './payload-fields.js';

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
