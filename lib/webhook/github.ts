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
  notAnObject,
  optionalBoolean,
  optionalRecord,
  optionalString,
  quoted,
  requireCommitSha,
  requireRecord,
  requireString,
  uniqueStrings,
  wrongType,
} from './payload-fields.js';
import type { ChangedFiles, PushAuthor, PushRepository } from './push-event.js';

/** GitHub lists at most 2048 commits per push delivery; longer pushes arrive cut. */
export const GITHUB_MAX_COMMITS = 2048;
/** GitHub cuts a commit's file lists in the thousands; reaching this many is treated as cut. */
export const GITHUB_MAX_FILES_PER_COMMIT = 3000;

/**
 * A GitHub `push` payload (branches and tags) → a provider-neutral push; 400 when it is not one.
 * For an annotated tag `after` becomes the tagged commit, the revision Argo CD reports once it syncs.
 */
export function normalizeGitHubPush(payload: unknown, meta: DeliveryMeta): NormalizedPush {
  if (!isRecord(payload)) throw notAnObject();
  const ref = requireString(payload, 'ref');
  const before = requireCommitSha(payload, 'before');
  const pushedSha = requireCommitSha(payload, 'after');
  const repository = requireRecord(payload, 'repository');
  const repo = githubRepository(repository);
  const parsed = parseRef(ref);
  if (parsed === undefined)
    return { kind: 'ignored', reason: `ref ${quoted(ref)} is neither a branch nor a tag` };

  const deleted = optionalBoolean(payload, 'deleted') || isZeroSha(pushedSha);
  const created = optionalBoolean(payload, 'created') || isZeroSha(before);
  const forced = optionalBoolean(payload, 'forced');
  const headCommit = optionalRecord(payload, 'head_commit');
  // An annotated tag's `after` is the tag object; Argo CD reports the tagged commit, which is `head_commit`.
  const headId = optionalString(headCommit, 'id')?.toLowerCase();
  const after = parsed.refType === 'tag' && !deleted && isCommitSha(headId) ? headId : pushedSha;
  const pusher = person(optionalRecord(payload, 'pusher'));
  const author = person(optionalRecord(headCommit, 'author')) ??
    pusher ?? { name: optionalString(optionalRecord(payload, 'sender'), 'login') ?? 'unknown' };
  const commitUrl =
    httpUrl(optionalString(headCommit, 'url')) ?? (deleted ? undefined : `${repo.webUrl}/commit/${after}`);

  return {
    kind: 'push',
    event: {
      provider: 'github',
      deliveryId: meta.deliveryId,
      repo,
      ref,
      refType: parsed.refType,
      refName: parsed.refName,
      before,
      after,
      touchedDefaultBranch: parsed.refType === 'branch' && parsed.refName === repo.defaultBranch,
      created,
      deleted,
      forced,
      author,
      ...(pusher === undefined ? {} : { pusher }),
      commitTitle: firstLine(optionalString(headCommit, 'message')),
      ...(commitUrl === undefined ? {} : { commitUrl }),
      changedFiles: githubChangedFiles(payload, { before, after: pushedSha, created, deleted, forced }),
      receivedAt: meta.receivedAt,
    },
  };
}

/**
 * Unknown vs empty. Deleted: nothing left to refresh (known empty; the edge ignores deletions anyway).
 * Created: the list is relative to some other base, so unknown. Forced: `commits` lists only new work,
 * not what the rewrite dropped, so unknown. No `commits`, or an empty one while the ref moved: unknown
 * (GitHub sends that for rewinds and oversize pushes). A cap reached: unknown. Otherwise the union of
 * every commit's lists, so a pushed empty commit gives a known-empty list.
 */
function githubChangedFiles(
  payload: JsonRecord,
  push: { before: string; after: string; created: boolean; deleted: boolean; forced: boolean },
): ChangedFiles {
  if (push.deleted) return { known: true, files: [] };
  if (push.created) return unknownFiles('created');
  if (push.forced) return unknownFiles('forced');
  const commits = commitList(payload);
  if (commits === undefined) return unknownFiles('no-commit-list');
  if (commits.length === 0) {
    return push.before === push.after ? { known: true, files: [] } : unknownFiles('no-commit-list');
  }
  return unionCommitFiles(commits, {
    maxCommits: GITHUB_MAX_COMMITS,
    maxFilesPerCommit: GITHUB_MAX_FILES_PER_COMMIT,
  });
}

function githubRepository(repository: JsonRecord): PushRepository {
  const webUrl = httpUrl(requireString(repository, 'html_url', 'repository.html_url'));
  if (webUrl === undefined) throw wrongType('repository.html_url', 'an http(s) URL');
  const apiBaseUrl = githubApiBase(repository, webUrl);
  const webLikeUrl = httpUrl(optionalString(repository, 'url'));
  const urls = uniqueStrings([
    webUrl,
    optionalString(repository, 'clone_url'),
    optionalString(repository, 'ssh_url'),
    optionalString(repository, 'git_url'),
    optionalString(repository, 'svn_url'),
    // In push payloads `url` is the web URL; in other events it is the API URL, which is not a repo URL.
    webLikeUrl !== undefined && !webLikeUrl.startsWith(apiBaseUrl) ? webLikeUrl : undefined,
  ]);
  const defaultBranch = optionalString(repository, 'default_branch');
  return {
    fullName: optionalString(repository, 'full_name') ?? new URL(webUrl).pathname.replace(/^\/+|\/+$/g, ''),
    webUrl,
    urls,
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
    apiBaseUrl,
  };
}

/** `https://api.github.com`, or `https://host/api/v3` on GitHub Enterprise Server, read off the API links. */
function githubApiBase(repository: JsonRecord, webUrl: string): string {
  for (const key of ['hooks_url', 'branches_url', 'commits_url', 'url']) {
    const link = httpUrl(optionalString(repository, key));
    if (link === undefined || link.toLowerCase().startsWith(webUrl.toLowerCase())) continue;
    const at = link.indexOf('/repos/');
    if (at > 0) return link.slice(0, at);
  }
  const web = new URL(webUrl);
  return web.hostname === 'github.com' ? 'https://api.github.com' : `${web.origin}/api/v3`;
}

function person(record: JsonRecord | undefined): PushAuthor | undefined {
  const name = optionalString(record, 'name');
  const username = optionalString(record, 'username');
  if (name === undefined) return username === undefined ? undefined : { name: username, username };
  return username === undefined ? { name } : { name, username };
}
