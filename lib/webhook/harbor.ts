import { BadRequestError } from '../errors.js';
import type { RegistryImage } from '../registry/registry-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import {
  isRecord,
  type JsonRecord,
  optionalString,
  quoted,
  requireRecord,
  requireString,
  wrongType,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import { registryPush, requireDigest, requireImageTag, requireRepositoryPath } from './registry-push.js';

/** Harbor's webhook event for an artifact (image, chart) pushed to a project. */
export const HARBOR_PUSH = 'PUSH_ARTIFACT';

const HOST = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$/;
/** A push of many artifacts at once is refused rather than fanned out without bound. */
const MAX_RESOURCES = 100;

export const HARBOR_PROVIDER: WebhookProvider = {
  name: 'harbor',
  // Harbor sends the webhook policy's "Auth Header" as `Authorization`, compared in constant time.
  signature: { kind: 'token', header: 'authorization' },
  eventName: { bodyField: 'type', otherwise: 'unknown' },
  // Harbor names no delivery: a redelivery of the same body is the same delivery.
  deliveryId: { header: [], orBodyHash: true },
  otherEventsId: 'body-hash',
  events: { push: [HARBOR_PUSH], checkPush: checkHarborPush },
  normalize: normalizeHarborPush,
};

/** Harbor's event type is in the body (`type`): a push, or another event answered 202 ignored. */
export function checkHarborPush(eventName: string, body: JsonRecord): string | undefined {
  if (eventName !== HARBOR_PUSH) return `Harbor event ${quoted(eventName, 40)} is not handled`;
  requireRecord(body, 'event_data');
  return undefined;
}

/**
 * `PUSH_ARTIFACT` → one registry push per artifact it lists (`<harbor host>/<project>/<repository>` at its
 * tag and digest), each planned and followed as an ECR push. Artifacts pushed without a tag are left out.
 */
export function normalizeHarborPush(body: JsonRecord, meta: DeliveryMeta): NormalizedPush | NormalizedPush[] {
  const data = requireRecord(body, 'event_data');
  const repository = requireRecord(data, 'repository', 'event_data.repository');
  const field = 'event_data.repository.repo_full_name';
  const path = requireRepositoryPath(
    requireString(repository, 'repo_full_name', field).toLowerCase(),
    field,
    'a Harbor repository path',
  );
  const resources = data.resources;
  if (!Array.isArray(resources) || resources.length === 0) {
    throw wrongType('event_data.resources', 'a list of pushed artifacts');
  }
  if (resources.length > MAX_RESOURCES) {
    throw new BadRequestError(`event_data.resources lists more than ${MAX_RESOURCES} artifacts`, {
      code: 'invalid-payload',
    });
  }
  const pushes: NormalizedPush[] = [];
  for (const [i, resource] of resources.entries()) {
    const at = `event_data.resources[${i}]`;
    if (!isRecord(resource)) throw wrongType(at, 'an object');
    const digest = requireDigest(requireString(resource, 'digest', `${at}.digest`), `${at}.digest`);
    const tag = optionalString(resource, 'tag') ?? '';
    if (tag === '') continue;
    requireImageTag(tag, `${at}.tag`);
    const host = hostOf(optionalString(resource, 'resource_url'), at);
    const image: RegistryImage = { host, repository: path, tag, digest };
    const each = { ...meta, deliveryId: `${meta.deliveryId}#${i}` };
    pushes.push(registryPush('harbor', image, each, optionalString(body, 'operator')));
  }
  if (pushes.length === 0)
    return { kind: 'ignored', reason: `artifacts of ${quoted(path, 80)} pushed without a tag` };
  return pushes.length === 1 ? (pushes[0] as NormalizedPush) : pushes;
}

/** `resource_url` is `<host>/<project>/<repository>:<tag>` (or `@<digest>`): the registry host is its start. */
function hostOf(resourceUrl: string | undefined, at: string): string {
  const host = resourceUrl?.split('/')[0]?.toLowerCase();
  if (host === undefined || !HOST.test(host))
    throw wrongType(`${at}.resource_url`, 'a registry host and path');
  return host;
}
