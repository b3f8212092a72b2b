import { BadRequestError } from '../errors.js';
import { ecrHost, type RegistryImage } from '../registry/registry-event.js';
import { ECR_IMAGE_ACTION, ECR_SOURCE } from '../registry/registry-push-event.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { type JsonRecord, quoted, requireRecord, requireString, wrongType } from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import { registryPush, requireDigest, requireImageTag, requireRepositoryPath } from './registry-push.js';

const ACCOUNT = /^[0-9]{12}$/;
const REGION = /^[a-z]{2}(?:-[a-z]+)+-[0-9]$/;

/**
 * The EventBridge event as the body, signed like the generic endpoint. In AWS the rule invokes the
 * function directly (no signature: AWS is the caller), see eventbridge-event.ts.
 */
export const ECR_PROVIDER: WebhookProvider = {
  name: 'ecr',
  signature: { kind: 'hmac-sha256', names: ['x-signature-256'], prefix: 'sha256=' },
  eventName: { fixed: ECR_IMAGE_ACTION },
  deliveryId: { bodyField: 'id' },
  otherEventsId: 'body-hash',
  events: { push: [ECR_IMAGE_ACTION], checkPush: checkEcrPush },
  normalize: normalizeEcrPush,
};

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
  const repository = requireRepositoryPath(
    requireString(detail, 'repository-name', 'detail.repository-name'),
    'detail.repository-name',
    'an ECR repository name',
  );
  const digest = requireDigest(
    requireString(detail, 'image-digest', 'detail.image-digest'),
    'detail.image-digest',
  );
  const raw = detail['image-tag'];
  // A push by digest alone names no tag: nothing follows it (targetRevisions name tags or digests).
  if (raw === undefined || raw === null || raw === '') {
    return { kind: 'ignored', reason: `image ${quoted(repository, 80)} pushed without a tag` };
  }
  const tag = requireImageTag(raw, 'detail.image-tag');
  const image: RegistryImage = { host: ecrHost(account, region), repository, tag, digest, account, region };
  return registryPush('ecr', image, meta);
}
