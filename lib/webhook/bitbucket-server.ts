import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
import { eachRefChange, notBranchOrTag, pushOf, refChange, refChangeFiles } from './normalize-push.js';
import {
  httpUrl,
  isRecord,
  isZeroSha,
  type JsonRecord,
  missingField,
  optionalRecord,
  optionalString,
  payloadObject,
  requireCommitSha,
  requireRecord,
  requireString,
  uniqueStrings,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import type { PushAuthor, PushRepository } from './push-event.js';

export const BITBUCKET_SERVER_PROVIDER: WebhookProvider = {
  name: 'bitbucket-server',
  signature: { kind: 'hmac-sha256', names: ['x-hub-signature'], prefix: 'sha256=' },
  eventName: { header: ['x-event-key'] },
  deliveryId: { header: ['x-request-id'] },
  otherEventsId: 'any-header',
  events: { push: ['repo:refs_changed'], ping: ['diagnostics:ping'] },
  normalize: normalizeBitbucketServerPush,
};

/**
 * A Bitbucket Server / Data Center `repo:refs_changed` payload → one push per entry of `changes`
 * (Argo CD reads only the first). `DELETE` changes are ignored. The payload carries no commits, so the
 * files are unknown: fan-out asks the Server's changes API when the repository is in the fleet file.
 */
export function normalizeBitbucketServerPush(body: unknown, meta: DeliveryMeta): NormalizedPush[] {
  const payload = payloadObject(body);
  const repo = serverRepository(requireRecord(payload, 'repository'));
  const pusher = serverActor(optionalRecord(payload, 'actor'));
  return eachRefChange(payload, 'changes', 'changes', (change, path) => {
    const refId =
      optionalString(change, 'refId') ?? requireString(requireRecord(change, 'ref'), 'id', `${path}.ref.id`);
    const type = requireString(change, 'type', `${path}.type`);
    const before = requireCommitSha(change, 'fromHash', `${path}.fromHash`);
    const after = requireCommitSha(change, 'toHash', `${path}.toHash`);
    const parsed = parseRef(refId);
    if (parsed === undefined) return notBranchOrTag(refId);
    const ref = refChange({ ref: refId, before, after }, parsed, {
      deleted: type === 'DELETE' || isZeroSha(after),
      created: type === 'ADD' || isZeroSha(before),
    });
    return pushOf('bitbucket-server', meta, {
      repo,
      change: ref,
      head: { author: pusher ?? { name: 'unknown' }, pusher, title: '' },
      files: refChangeFiles(ref),
    });
  });
}

/** Clone links (`http` and `ssh`, both ending in `.git`) and the web `…/browse` link, malformed ones skipped. */
function serverRepository(repository: JsonRecord): PushRepository {
  const links = optionalRecord(repository, 'links');
  const hrefs = (name: string): { href?: string; name?: string }[] => {
    const list = links?.[name];
    return Array.isArray(list) ? list.filter(isRecord).map((l) => ({ ...l })) : [];
  };
  const clones = hrefs('clone').filter(
    (l) => typeof l.href === 'string' && (l.name === 'http' || l.name === 'ssh'),
  );
  const self = hrefs('self')
    .map((l) => httpUrl(typeof l.href === 'string' ? l.href : undefined))
    .find((href) => href !== undefined);
  const httpClone = clones.map((l) => httpUrl(l.href)).find((href) => href !== undefined);
  const webUrl = self?.replace(/\/browse\/?$/, '') ?? httpClone?.replace(/\.git$/i, '');
  if (webUrl === undefined) throw missingField('repository.links');
  const slug = optionalString(repository, 'slug');
  const projectKey = optionalString(optionalRecord(repository, 'project'), 'key');
  return {
    fullName: projectKey !== undefined && slug !== undefined ? `${projectKey}/${slug}` : (slug ?? webUrl),
    webUrl,
    urls: uniqueStrings([webUrl, self, ...clones.map((l) => l.href)]),
  };
}

function serverActor(record: JsonRecord | undefined): PushAuthor | undefined {
  const name = optionalString(record, 'displayName') ?? optionalString(record, 'name');
  const username = optionalString(record, 'slug') ?? optionalString(record, 'name');
  if (name === undefined) return undefined;
  return username === undefined ? { name } : { name, username };
}
