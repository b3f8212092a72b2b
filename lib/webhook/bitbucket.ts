import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { eachRefChange, personOf, pushOf, refChange, refChangeFiles } from './normalize-push.js';
import {
  firstLine,
  httpUrl,
  type JsonRecord,
  missingField,
  optionalRecord,
  optionalString,
  payloadObject,
  quoted,
  requireCommitSha,
  requireRecord,
  requireString,
  uniqueStrings,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import { type PushAuthor, type PushRepository, type RefType, ZERO_SHA } from './push-event.js';

export const BITBUCKET_PROVIDER: WebhookProvider = {
  name: 'bitbucket',
  signature: { kind: 'hmac-sha256', names: ['x-hub-signature'], prefix: 'sha256=' },
  eventName: { header: ['x-event-key'] },
  deliveryId: { header: ['x-request-uuid'] },
  otherEventsId: 'any-header',
  events: { push: ['repo:push'] },
  normalize: normalizeBitbucketPush,
};

const REF_TYPES: Readonly<Record<string, RefType>> = {
  branch: 'branch',
  named_branch: 'branch',
  tag: 'tag',
  annotated_tag: 'tag',
};

/**
 * A Bitbucket Cloud `repo:push` payload → one push per entry of `push.changes` (Argo CD reads only
 * the first). The payload lists at most five commits and never files, so the files are unknown and
 * fan-out asks the diffstat API (when the repository is in the fleet file) or fails open.
 */
export function normalizeBitbucketPush(body: unknown, meta: DeliveryMeta): NormalizedPush[] {
  const payload = payloadObject(body);
  const repo = bitbucketRepository(requireRecord(payload, 'repository'));
  const push = requireRecord(payload, 'push');
  const pusher = actor(optionalRecord(payload, 'actor'));
  return eachRefChange(push, 'changes', 'push.changes', (change, path) =>
    normalizeChange(change, path, { repo, pusher, meta }),
  );
}

function normalizeChange(
  entry: JsonRecord,
  path: string,
  context: { repo: PushRepository; pusher: PushAuthor | undefined; meta: DeliveryMeta },
): NormalizedPush {
  const next = optionalRecord(entry, 'new');
  const old = optionalRecord(entry, 'old');
  const side = next ?? old;
  if (side === undefined) throw missingField(`${path}.new`);
  const name = requireString(side, 'name', `${path}.${next ? 'new' : 'old'}.name`);
  const type = requireString(side, 'type', `${path}.${next ? 'new' : 'old'}.type`);
  const refType = REF_TYPES[type];
  if (refType === undefined)
    return { kind: 'ignored', reason: `ref type ${quoted(type, 40)} is not handled` };
  const target = next === undefined ? undefined : requireRecord(next, 'target', `${path}.new.target`);
  const after = target === undefined ? ZERO_SHA : requireCommitSha(target, 'hash', `${path}.new.target.hash`);
  const oldTarget = optionalRecord(old, 'target');
  const before =
    oldTarget === undefined ? ZERO_SHA : requireCommitSha(oldTarget, 'hash', `${path}.old.target.hash`);
  const ref = `refs/${refType === 'branch' ? 'heads' : 'tags'}/${name}`;
  const change = refChange(
    { ref, before, after },
    { refType, refName: name },
    {
      deleted: next === undefined || entry.closed === true,
      created: old === undefined || entry.created === true,
      forced: entry.forced === true,
    },
  );
  const { repo, pusher, meta } = context;
  return pushOf('bitbucket', meta, {
    repo,
    change,
    head: {
      author: commitAuthor(optionalRecord(target, 'author')) ?? pusher ?? { name: 'unknown' },
      pusher,
      title: firstLine(optionalString(target, 'message')),
      link: optionalString(optionalRecord(optionalRecord(target, 'links'), 'html'), 'href'),
    },
    files: refChangeFiles(change),
  });
}

function bitbucketRepository(repository: JsonRecord): PushRepository {
  const links = optionalRecord(repository, 'links');
  const html = httpUrl(optionalString(optionalRecord(links, 'html'), 'href'));
  const fullName = optionalString(repository, 'full_name');
  const webUrl = html ?? (fullName === undefined ? undefined : `https://bitbucket.org/${fullName}`);
  if (webUrl === undefined) throw missingField('repository.links.html.href');
  const defaultBranch = optionalString(optionalRecord(repository, 'mainbranch'), 'name');
  const host = new URL(webUrl).hostname.toLowerCase();
  const onCloud = host === 'bitbucket.org' || host.endsWith('.bitbucket.org');
  return {
    fullName: fullName ?? new URL(webUrl).pathname.replace(/^\/+|\/+$/g, ''),
    webUrl,
    urls: uniqueStrings([
      webUrl,
      onCloud && fullName !== undefined ? `https://bitbucket.org/${fullName}` : undefined,
    ]),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
    ...(onCloud ? { apiBaseUrl: 'https://api.bitbucket.org' } : {}),
  };
}

/** `{raw: "Name <mail>", user: {display_name}}` in today's payloads; older samples flatten the user. */
function commitAuthor(author: JsonRecord | undefined): PushAuthor | undefined {
  const user = optionalRecord(author, 'user');
  const fromUser = actor(user) ?? actor(author);
  if (fromUser !== undefined) return fromUser;
  const raw = optionalString(author, 'raw');
  return raw === undefined ? undefined : { name: raw.replace(/\s*<[^>]*>\s*$/, '').trim() || raw };
}

function actor(record: JsonRecord | undefined): PushAuthor | undefined {
  const username = optionalString(record, 'nickname') ?? optionalString(record, 'username');
  return personOf(optionalString(record, 'display_name'), username);
}
