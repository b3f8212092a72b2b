import { createHash } from 'node:crypto';
import type { RegistryScope } from '../config.js';
import type { RegistryImage } from './registry-event.js';

/**
 * Why a registry push is not this deployment's (another AWS account or region than the one it serves),
 * or undefined when it is. A rule in another account forwarding to this bus must not refresh this fleet.
 */
export function outOfScope(image: RegistryImage, scope: RegistryScope): 'account' | 'region' | undefined {
  if (scope.account !== undefined && image.account !== undefined && image.account !== scope.account) {
    return 'account';
  }
  if (scope.region !== undefined && image.region !== undefined && image.region !== scope.region) {
    return 'region';
  }
  return undefined;
}

/**
 * What a registry push is de-duplicated on: its digest and tag, not the event id, so two events for the
 * same image (ECR sends one per push, a re-push of the same bytes sends another) are one delivery.
 */
export function imageDeliveryId(image: RegistryImage): string {
  const tag = createHash('sha256').update(image.tag).digest('hex').slice(0, 16);
  return `image-${image.digest.slice('sha256:'.length)}-${tag}`;
}
