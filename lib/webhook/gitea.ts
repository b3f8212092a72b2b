import { commitList, listedCommitFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
import { htmlRepository } from './html-repository.js';
import {
  notBranchOrTag,
  personOf,
  pushOf,
  readRefUpdate,
  refChange,
  refChangeFiles,
} from './normalize-push.js';
import {
  firstLine,
  isRecord,
  type JsonRecord,
  optionalBoolean,
  optionalRecord,
  optionalString,
  payloadObject,
  requireRecord,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import type { PushAuthor } from './push-event.js';

export const GITEA_PROVIDER: WebhookProvider = {
  name: 'gitea',
  // Forgejo sends its own headers besides Gitea's; Gogs only its own. All signatures are bare hex.
  signature: {
    kind: 'hmac-sha256',
    names: ['x-gitea-signature', 'x-forgejo-signature', 'x-gogs-signature'],
    prefix: '',
  },
  eventName: { header: ['x-gitea-event', 'x-forgejo-event', 'x-gogs-event'] },
  deliveryId: { header: ['x-gitea-delivery', 'x-forgejo-delivery', 'x-gogs-delivery'] },
  otherEventsId: 'any-header',
  events: { push: ['push'] },
  normalize: normalizeGiteaPush,
};

/**
 * A Gitea, Forgejo or Gogs `push` payload (GitHub-shaped: `ref`, `before`, `after`, `commits[]` with
 * added/removed/modified) → a provider-neutral push. Gitea says how many commits the push had in
 * `total_commits`; a list shorter than that was cut, so the files are then unknown.
 */
export function normalizeGiteaPush(body: unknown, meta: DeliveryMeta): NormalizedPush {
  const payload = payloadObject(body);
  const update = readRefUpdate(payload);
  const repo = htmlRepository(requireRecord(payload, 'repository'), ['clone_url', 'ssh_url']);
  const parsed = parseRef(update.ref);
  if (parsed === undefined) return notBranchOrTag(update.ref);
  const commits = commitList(payload);
  const headCommit =
    optionalRecord(payload, 'head_commit') ??
    commits?.filter(isRecord).find((c) => c.id === update.after) ??
    commits?.filter(isRecord).at(-1);
  // An annotated tag's `after` may be the tag object; Argo CD reports the tagged commit.
  const tagged = optionalString(headCommit, 'id')?.toLowerCase();
  const change = refChange(update, parsed, { forced: optionalBoolean(payload, 'forced'), tagged });
  const pusher = person(optionalRecord(payload, 'pusher'));
  const listing = { total: payload.total_commits };
  return pushOf('gitea', meta, {
    repo,
    change,
    head: {
      author: person(optionalRecord(headCommit, 'author')) ?? pusher ?? { name: 'unknown' },
      pusher,
      title: firstLine(optionalString(headCommit, 'message')),
      link: optionalString(headCommit, 'url'),
    },
    files: refChangeFiles(change, () => listedCommitFiles(commits, change, listing)),
  });
}

function person(record: JsonRecord | undefined): PushAuthor | undefined {
  const name = optionalString(record, 'full_name') ?? optionalString(record, 'name');
  return personOf(name, optionalString(record, 'username') ?? optionalString(record, 'login'));
}
