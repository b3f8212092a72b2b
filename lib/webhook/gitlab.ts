import { BadRequestError } from '../errors.js';
import { commitList, unionCommitFiles, unknownFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
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
  httpUrl,
  isRecord,
  type JsonRecord,
  missingField,
  optionalId,
  optionalRecord,
  optionalString,
  payloadObject,
  quoted,
  uniqueStrings,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import type { ChangedFiles, PushRepository } from './push-event.js';

export const GITLAB_PROVIDER: WebhookProvider = {
  name: 'gitlab',
  signature: { kind: 'token', header: 'x-gitlab-token' },
  eventName: { header: ['x-gitlab-event'] },
  // `Idempotency-Key` stays the same across retries; `X-Gitlab-Event-UUID` names the event. Without
  // either (older GitLab, or a proxy that drops them) the body's SHA-256 still catches a redelivery.
  deliveryId: { header: ['idempotency-key', 'x-gitlab-event-uuid'], orBodyHash: true },
  otherEventsId: 'first',
  events: { push: ['Push Hook', 'Tag Push Hook', 'System Hook'], checkPush: checkGitLabPush },
  normalize: normalizeGitLabPush,
};

/** GitLab lists the newest 20 commits of a push; `total_commits_count` has the real number. */
export const GITLAB_MAX_COMMITS = 20;

/**
 * A GitLab push or tag push payload (project hook, group hook or system hook) → a provider-neutral
 * push; 400 when it is not one. For an annotated tag `after` becomes the tagged commit
 * (`checkout_sha`), the revision Argo CD reports once it syncs.
 */
export function normalizeGitLabPush(body: unknown, meta: DeliveryMeta): NormalizedPush {
  const payload = payloadObject(body);
  const update = readRefUpdate(payload);
  const repo = gitlabRepository(payload);
  const parsed = parseRef(update.ref);
  if (parsed === undefined) return notBranchOrTag(update.ref);

  // GitLab does not say whether a push was forced; a rewind shows as an empty commit list.
  const change = refChange(update, parsed, {
    tagged: optionalString(payload, 'checkout_sha')?.toLowerCase(),
  });
  const commits = commitList(payload);
  const head = headCommit(commits, change.after);
  const pusher = personOf(optionalString(payload, 'user_name'), optionalString(payload, 'user_username'));
  const authorName = optionalString(optionalRecord(head, 'author'), 'name');
  // Tags, like new branches, have no base to compare with.
  const noBase = { ...change, created: change.created || parsed.refType === 'tag' };
  return pushOf('gitlab', meta, {
    repo,
    change,
    head: {
      author: authorName === undefined ? (pusher ?? { name: 'unknown' }) : { name: authorName },
      pusher,
      title:
        optionalString(head, 'title')?.trim() ??
        firstLine(optionalString(head, 'message') ?? optionalString(payload, 'message')),
      link: optionalString(head, 'url'),
    },
    files: refChangeFiles(noBase, () => listedFiles(payload, commits, change)),
  });
}

/**
 * Unknown vs empty, past `refChangeFiles`: no list, or an empty one while the ref moved (a rewind, or a
 * system hook, which never lists commits): unknown. `total_commits_count` above the listed commits, or
 * a full 20 without a count: unknown `truncated`. Otherwise the union, so an empty commit is known-empty.
 */
function listedFiles(
  payload: JsonRecord,
  commits: readonly unknown[] | undefined,
  push: { before: string; pushed: string },
): ChangedFiles {
  if (commits === undefined) return unknownFiles('no-commit-list');
  const total = payload.total_commits_count;
  const totalCount =
    typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
  if (commits.length === 0) {
    return (totalCount ?? 0) === 0 && push.before === push.pushed
      ? { known: true, files: [] }
      : unknownFiles('no-commit-list');
  }
  if (totalCount !== undefined && totalCount > commits.length) return unknownFiles('truncated');
  return unionCommitFiles(commits, totalCount === undefined ? { maxCommits: GITLAB_MAX_COMMITS } : {});
}

function gitlabRepository(payload: JsonRecord): PushRepository {
  const project = optionalRecord(payload, 'project');
  const repository = optionalRecord(payload, 'repository');
  const webUrl =
    httpUrl(optionalString(project, 'web_url')) ?? httpUrl(optionalString(repository, 'homepage'));
  if (webUrl === undefined) throw missingField(project === undefined ? 'project' : 'project.web_url');
  const fullName =
    optionalString(project, 'path_with_namespace') ?? new URL(webUrl).pathname.replace(/^\/+|\/+$/g, '');
  const defaultBranch = optionalString(project, 'default_branch');
  const projectId = optionalId(payload, 'project_id') ?? optionalId(project, 'id');
  return {
    fullName,
    webUrl,
    urls: uniqueStrings([
      webUrl,
      ...['git_http_url', 'git_ssh_url', 'http_url', 'ssh_url', 'url', 'homepage'].map((key) =>
        optionalString(project, key),
      ),
      ...['homepage', 'url', 'git_http_url', 'git_ssh_url'].map((key) => optionalString(repository, key)),
    ]),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
    apiBaseUrl: gitlabApiBase(webUrl, fullName),
    ...(projectId === undefined ? {} : { projectId }),
  };
}

/** Web origin, plus the relative URL root the instance runs under (web path minus the project path). */
function gitlabApiBase(webUrl: string, fullName: string): string {
  const url = new URL(webUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const suffix = `/${fullName}`.toLowerCase();
  const root = path.toLowerCase().endsWith(suffix) ? path.slice(0, path.length - suffix.length) : '';
  return `${url.origin}${root}/api/v4`;
}

/** The commit the ref now points at (oldest-first list, so the last one when the id is not found). */
function headCommit(commits: readonly unknown[] | undefined, after: string): JsonRecord | undefined {
  const records = (commits ?? []).filter(isRecord);
  return records.find((commit) => commit.id === after) ?? records.at(-1);
}

const GITLAB_PUSH_KINDS: Readonly<Record<string, string>> = {
  'Push Hook': 'push',
  'Tag Push Hook': 'tag_push',
};

/** A system hook carries every kind of event (only pushes are handled); a project hook names its own. */
function checkGitLabPush(eventName: string, body: JsonRecord): string | undefined {
  const kind = gitlabKind(body);
  if (eventName === 'System Hook') {
    return kind === 'push' || kind === 'tag_push'
      ? undefined
      : `system hook ${quoted(kind ?? 'unknown', 60)} is not handled`;
  }
  if (kind !== undefined && kind !== GITLAB_PUSH_KINDS[eventName]) {
    throw new BadRequestError(`body is not a ${eventName}: object_kind is ${quoted(kind, 60)}`, {
      code: 'invalid-payload',
    });
  }
  return undefined;
}

function gitlabKind(body: JsonRecord): string | undefined {
  const kind = body.object_kind ?? body.event_name;
  return typeof kind === 'string' && kind !== '' ? kind : undefined;
}
