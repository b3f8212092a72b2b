import { commitList, unionCommitFiles, unknownFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { parseRef } from './git-ref.js';
import { notBranchOrTag, peeled, personOf, pushOf, readRefUpdate, refChangeFiles } from './normalize-push.js';
import {
  firstLine,
  httpUrl,
  isRecord,
  isZeroSha,
  type JsonRecord,
  notAnObject,
  optionalBoolean,
  optionalRecord,
  optionalString,
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
  const { ref, before, after: pushedSha } = readRefUpdate(payload);
  const repo = githubRepository(requireRecord(payload, 'repository'));
  const parsed = parseRef(ref);
  if (parsed === undefined) return notBranchOrTag(ref);

  const deleted = optionalBoolean(payload, 'deleted') || isZeroSha(pushedSha);
  const created = optionalBoolean(payload, 'created') || isZeroSha(before);
  const forced = optionalBoolean(payload, 'forced');
  // An annotated tag's `after` is the tag object; Argo CD reports the tagged commit, which is `head_commit`.
  const headCommit = optionalRecord(payload, 'head_commit');
  const after = peeled(parsed, deleted, pushedSha, optionalString(headCommit, 'id')?.toLowerCase());
  const pusher = person(optionalRecord(payload, 'pusher'));
  const author = person(optionalRecord(headCommit, 'author')) ??
    pusher ?? { name: optionalString(optionalRecord(payload, 'sender'), 'login') ?? 'unknown' };
  const push = { before, after: pushedSha, created, deleted, forced };
  return pushOf({ provider: 'github', commitPath: '/commit/' }, meta, {
    repo,
    ref,
    parsed,
    before,
    after,
    created,
    deleted,
    forced,
    author,
    pusher,
    commitTitle: firstLine(optionalString(headCommit, 'message')),
    commitLink: optionalString(headCommit, 'url'),
    changedFiles: refChangeFiles(push, () => listedFiles(payload, push)),
  });
}

/**
 * Unknown vs empty, past `refChangeFiles`: no `commits`, or an empty one while the ref moved: unknown
 * (GitHub sends that for rewinds and oversize pushes). A cap reached: unknown. Otherwise the union of
 * every commit's lists, so a pushed empty commit gives a known-empty list.
 */
function listedFiles(payload: JsonRecord, push: { before: string; after: string }): ChangedFiles {
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
    ...['clone_url', 'ssh_url', 'git_url', 'svn_url'].map((key) => optionalString(repository, key)),
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
  return personOf(optionalString(record, 'name'), optionalString(record, 'username'));
}
