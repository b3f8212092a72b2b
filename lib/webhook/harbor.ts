import { BadRequestError } from '../errors.js';
import { DIGEST, OCI_TAG, REPOSITORY_PATH, type RegistryImage } from '../registry/registry-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { registryPushEvent } from './ecr.js';
import {
  isRecord,
  type JsonRecord,
  optionalString,
  quoted,
  requireRecord,
  requireString,
  wrongType,
} from './payload-fields.js';

/** Harbor's webhook event for an artifact (image, chart) pushed to a project. */
export const HARBOR_PUSH = 'PUSH_ARTIFACT';

const HOST = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$/;
/** A push of many artifacts at once is refused rather than fanned out without bound. */
const MAX_RESOURCES = 100;

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
  const path = requireString(
    repository,
    'repo_full_name',
    'event_data.repository.repo_full_name',
  ).toLowerCase();
  if (path.length > 256 || !REPOSITORY_PATH.test(path)) {
    throw wrongType('event_data.repository.repo_full_name', 'a Harbor repository path');
  }
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
    const digest = requireString(resource, 'digest', `${at}.digest`).toLowerCase();
    if (!DIGEST.test(digest)) throw wrongType(`${at}.digest`, 'a sha256 digest');
    const tag = optionalString(resource, 'tag') ?? '';
    if (tag === '') continue;
    if (!OCI_TAG.test(tag)) throw wrongType(`${at}.tag`, 'an image tag');
    const host = hostOf(optionalString(resource, 'resource_url'), at);
    const image: RegistryImage = { host, repository: path, tag, digest };
    const event = registryPushEvent('harbor', image, { ...meta, deliveryId: `${meta.deliveryId}#${i}` });
    const operator = optionalString(body, 'operator');
    pushes.push({
      kind: 'push',
      event: operator === undefined ? event : { ...event, author: { name: operator } },
    });
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
