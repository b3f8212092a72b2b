import { commitList, unionCommitFiles, unknownFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
import {
  firstLine,
  httpUrl,
  isCommitSha,
  isRecord,
  isZeroSha,
  type JsonRecord,
  missingField,
  notAnObject,
  optionalId,
  optionalRecord,
  optionalString,
  quoted,
  requireCommitSha,
  requireString,
  uniqueStrings,
} from './payload-fields.js';
import type { ChangedFiles, PushAuthor, PushRepository } from './push-event.js';

/** GitLab lists the newest 20 commits of a push; `total_commits_count` has the real number. */
export const GITLAB_MAX_COMMITS = 20;

/**
 * A GitLab push or tag push payload (project hook, group hook or system hook) → a provider-neutral
 * push; 400 when it is not one. For an annotated tag `after` becomes the tagged commit
 * (`checkout_sha`), the revision Argo CD reports once it syncs.
 */
export function normalizeGitLabPush(payload: unknown, meta: DeliveryMeta): NormalizedPush {
  if (!isRecord(payload)) throw notAnObject();
  const ref = requireString(payload, 'ref');
  const before = requireCommitSha(payload, 'before');
  const pushedSha = requireCommitSha(payload, 'after');
  const repo = gitlabRepository(payload);
  const parsed = parseRef(ref);
  if (parsed === undefined)
    return { kind: 'ignored', reason: `ref ${quoted(ref)} is neither a branch nor a tag` };

  const deleted = isZeroSha(pushedSha);
  const checkoutSha = optionalString(payload, 'checkout_sha')?.toLowerCase();
  const after = parsed.refType === 'tag' && !deleted && isCommitSha(checkoutSha) ? checkoutSha : pushedSha;
  const commits = commitList(payload);
  const head = headCommit(commits, after);
  const pusher = gitlabPusher(payload);
  const author = person(optionalRecord(head, 'author')) ?? pusher ?? { name: 'unknown' };
  const commitUrl =
    httpUrl(optionalString(head, 'url')) ?? (deleted ? undefined : `${repo.webUrl}/-/commit/${after}`);
  const push = {
    before,
    after: pushedSha,
    created: isZeroSha(before),
    deleted,
    tag: parsed.refType === 'tag',
  };

  return {
    kind: 'push',
    event: {
      provider: 'gitlab',
      deliveryId: meta.deliveryId,
      repo,
      ref,
      refType: parsed.refType,
      refName: parsed.refName,
      before,
      after,
      touchedDefaultBranch: parsed.refType === 'branch' && parsed.refName === repo.defaultBranch,
      created: push.created,
      deleted,
      // GitLab does not say whether a push was forced; a rewind shows as an empty commit list.
      forced: false,
      author,
      ...(pusher === undefined ? {} : { pusher }),
      commitTitle:
        optionalString(head, 'title')?.trim() ??
        firstLine(optionalString(head, 'message') ?? optionalString(payload, 'message')),
      ...(commitUrl === undefined ? {} : { commitUrl }),
      changedFiles: gitlabChangedFiles(payload, commits, push),
      receivedAt: meta.receivedAt,
    },
  };
}

/**
 * Unknown vs empty. Deleted: known empty (ignored at the edge). Tags and new branches: unknown
 * `created` (no base to compare with). No list, or an empty one while the ref moved (a rewind, or a
 * system hook, which never lists commits): unknown. `total_commits_count` above the listed commits, or
 * a full 20 without a count: unknown `truncated`. Otherwise the union, so an empty commit is known-empty.
 */
function gitlabChangedFiles(
  payload: JsonRecord,
  commits: readonly unknown[] | undefined,
  push: { before: string; after: string; created: boolean; deleted: boolean; tag: boolean },
): ChangedFiles {
  if (push.deleted) return { known: true, files: [] };
  if (push.tag || push.created) return unknownFiles('created');
  if (commits === undefined) return unknownFiles('no-commit-list');
  const total = payload.total_commits_count;
  const totalCount =
    typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
  if (commits.length === 0) {
    return (totalCount ?? 0) === 0 && push.before === push.after
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

function gitlabPusher(payload: JsonRecord): PushAuthor | undefined {
  const name = optionalString(payload, 'user_name');
  const username = optionalString(payload, 'user_username');
  if (name === undefined) return username === undefined ? undefined : { name: username, username };
  return username === undefined ? { name } : { name, username };
}

function person(record: JsonRecord | undefined): PushAuthor | undefined {
  const name = optionalString(record, 'name');
  return name === undefined ? undefined : { name };
}
