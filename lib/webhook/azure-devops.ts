import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
import {
  eachRefChange,
  notBranchOrTag,
  pushOf,
  readRefUpdate,
  refChange,
  refChangeFiles,
} from './normalize-push.js';
import {
  firstLine,
  httpUrl,
  isRecord,
  type JsonRecord,
  missingField,
  optionalRecord,
  optionalString,
  payloadObject,
  requireRecord,
  uniqueStrings,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import type { PushAuthor, PushRepository } from './push-event.js';

export const AZURE_DEVOPS_PROVIDER: WebhookProvider = {
  name: 'azure-devops',
  signature: { kind: 'basic-auth' },
  eventName: { bodyField: 'eventType', otherwise: 'unknown' },
  deliveryId: { bodyField: 'id' },
  otherEventsId: 'body-hash',
  events: { push: ['git.push'] },
  normalize: normalizeAzureDevOpsPush,
};

const AZURE_KEYS = { ref: 'name', before: 'oldObjectId', after: 'newObjectId' } as const;

/**
 * An Azure DevOps `git.push` service-hook payload → one push per entry of `resource.refUpdates` (Argo CD
 * reads only the first, and an empty list is ignored). Azure lists commits but never files, so the files
 * are unknown: fan-out asks the diffs API when the repository is in the fleet file, else fails open.
 */
export function normalizeAzureDevOpsPush(body: unknown, meta: DeliveryMeta): NormalizedPush[] {
  const payload = payloadObject(body);
  const resource = requireRecord(payload, 'resource');
  const repo = azureRepository(requireRecord(resource, 'repository', 'resource.repository'));
  const commits = Array.isArray(resource.commits) ? resource.commits.filter(isRecord) : [];
  const pushedBy = optionalString(optionalRecord(resource, 'pushedBy'), 'displayName');
  const pusherName = optionalString(optionalRecord(resource, 'pushedBy'), 'uniqueName');
  const pusher: PushAuthor | undefined =
    pushedBy === undefined ? undefined : { name: pushedBy, ...(pusherName ? { username: pusherName } : {}) };
  return eachRefChange(resource, 'refUpdates', 'resource.refUpdates', (update, path) => {
    const refUpdate = readRefUpdate(update, AZURE_KEYS, path);
    const parsed = parseRef(refUpdate.ref);
    if (parsed === undefined) return notBranchOrTag(refUpdate.ref);
    const change = refChange(refUpdate, parsed);
    const head = commits.find((c) => optionalString(c, 'commitId')?.toLowerCase() === change.after);
    const authorName = optionalString(optionalRecord(head, 'author'), 'name');
    return pushOf('azure-devops', meta, {
      repo,
      change,
      head: {
        author: authorName === undefined ? (pusher ?? { name: 'unknown' }) : { name: authorName },
        pusher,
        title: firstLine(optionalString(head, 'comment')),
      },
      files: refChangeFiles(change),
    });
  });
}

/** `remoteUrl` is the clone URL (`https://[org@]dev.azure.com/org/project/_git/repo` or `*.visualstudio.com`). */
function azureRepository(repository: JsonRecord): PushRepository {
  const remote = httpUrl(optionalString(repository, 'remoteUrl'));
  const web = httpUrl(optionalString(repository, 'webUrl'));
  const webUrl = withoutUserInfo(web ?? remote);
  if (webUrl === undefined) throw missingField('resource.repository.remoteUrl');
  const name = optionalString(repository, 'name');
  const project = optionalString(optionalRecord(repository, 'project'), 'name');
  const defaultRef = optionalString(repository, 'defaultBranch');
  const defaultBranch = defaultRef === undefined ? undefined : parseRef(defaultRef)?.refName;
  return {
    fullName: project !== undefined && name !== undefined ? `${project}/${name}` : (name ?? webUrl),
    webUrl,
    urls: uniqueStrings([webUrl, remote, web, optionalString(repository, 'sshUrl')]),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
  };
}

function withoutUserInfo(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString().replace(/\/+$/, '');
}
