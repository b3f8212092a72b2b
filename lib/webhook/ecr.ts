import { BadRequestError } from '../errors.js';
import {
  DIGEST,
  digestHex,
  ecrHost,
  imageKey,
  OCI_TAG,
  REPOSITORY_PATH,
  type RegistryImage,
} from '../registry/registry-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { type JsonRecord, quoted, requireRecord, requireString, wrongType } from './payload-fields.js';
import { type PushEvent, ZERO_SHA } from './push-event.js';

export const ECR_SOURCE = 'aws.ecr';
export const ECR_IMAGE_ACTION = 'ECR Image Action';

const ACCOUNT = /^[0-9]{12}$/;
const REGION = /^[a-z]{2}(?:-[a-z]+)+-[0-9]$/;

/**
 * The EventBridge event `source: aws.ecr`, `detail-type: ECR Image Action` must be a successful push;
 * anything else sent to `/webhooks/ecr` is not the event this route takes (400). In AWS the rule only
 * passes those, so this guards the local route and a rule edited by hand.
 */
export function checkEcrPush(_eventName: string, body: JsonRecord): undefined {
  const notPush = (why: string) =>
    new BadRequestError(`body is not an ECR image push: ${why}`, { code: 'invalid-payload' });
  if (body.source !== ECR_SOURCE) throw notPush(`source is not ${ECR_SOURCE}`);
  if (body['detail-type'] !== ECR_IMAGE_ACTION) throw notPush(`detail-type is not ${ECR_IMAGE_ACTION}`);
  const detail = requireRecord(body, 'detail');
  if (detail['action-type'] !== 'PUSH') throw notPush('detail.action-type is not PUSH');
  if (detail.result !== 'SUCCESS') throw notPush('detail.result is not SUCCESS');
  return undefined;
}

/** The verified EventBridge event → a registry push, its rollout keyed by the digest's hex. */
export function normalizeEcrPush(body: JsonRecord, meta: DeliveryMeta): NormalizedPush {
  const account = requireString(body, 'account');
  if (!ACCOUNT.test(account)) throw wrongType('account', 'a 12-digit AWS account id');
  const region = requireString(body, 'region');
  if (!REGION.test(region)) throw wrongType('region', 'an AWS region');
  const detail = requireRecord(body, 'detail');
  const repository = requireString(detail, 'repository-name', 'detail.repository-name');
  if (repository.length > 256 || !REPOSITORY_PATH.test(repository)) {
    throw wrongType('detail.repository-name', 'an ECR repository name');
  }
  const digest = requireString(detail, 'image-digest', 'detail.image-digest').toLowerCase();
  if (!DIGEST.test(digest)) throw wrongType('detail.image-digest', 'a sha256 digest');
  const tag = detail['image-tag'];
  // A push by digest alone names no tag: nothing follows it (targetRevisions name tags or digests).
  if (tag === undefined || tag === null || tag === '') {
    return { kind: 'ignored', reason: `image ${quoted(repository, 80)} pushed without a tag` };
  }
  if (typeof tag !== 'string' || !OCI_TAG.test(tag)) throw wrongType('detail.image-tag', 'an image tag');
  const image: RegistryImage = { host: ecrHost(account, region), repository, tag, digest, account, region };
  return { kind: 'push', event: registryPushEvent('ecr', image, meta) };
}

/**
 * A registry push in the shape of a push event, so the engine plans, records and tracks it as one: the
 * rollout's `after` is the digest's hex, `ref`/`refName` the tag, `repo` the image repository. There is no
 * Git commit, no file list (a known-empty one: no path filter applies) and no parent commit.
 */
export function registryPushEvent(
  provider: 'ecr' | 'github' | 'harbor',
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
