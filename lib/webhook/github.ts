import { BadRequestError } from '../errors.js';
import { commitList, listedCommitFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import { GHCR_EVENT, ghcrIgnored, isPackageEvent, normalizeGhcrPackage } from './ghcr.js';
import { parseRef } from './git-ref.js';
import { CHECK_RUN_EVENTS, readCheckRunAction } from './github-check-run.js';
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
  httpUrl,
  isZeroSha,
  type JsonRecord,
  optionalBoolean,
  optionalRecord,
  optionalString,
  payloadObject,
  requireRecord,
  uniqueStrings,
} from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import type { PushAuthor, PushRepository } from './push-event.js';

export const GITHUB_PROVIDER: WebhookProvider = {
  name: 'github',
  signature: { kind: 'github-sha256' },
  eventName: { header: ['x-github-event'] },
  deliveryId: { header: ['x-github-delivery'] },
  otherEventsId: 'first',
  events: {
    // `package`: GHCR (a container version published), a registry push like ECR's.
    push: ['push', GHCR_EVENT],
    ping: ['ping'],
    checkPush: checkGitHubPush,
    action: { events: CHECK_RUN_EVENTS, read: readCheckRunAction },
  },
  normalize: (body, meta) =>
    isPackageEvent(body) ? normalizeGhcrPackage(body, meta) : normalizeGitHubPush(body, meta),
};

/** GitHub lists at most 2048 commits per push delivery; longer pushes arrive cut. */
export const GITHUB_MAX_COMMITS = 2048;
/** GitHub cuts a commit's file lists in the thousands; reaching this many is treated as cut. */
export const GITHUB_MAX_FILES_PER_COMMIT = 3000;

const CAPS = { maxCommits: GITHUB_MAX_COMMITS, maxFilesPerCommit: GITHUB_MAX_FILES_PER_COMMIT };

/**
 * A GitHub `push` payload (branches and tags) → a provider-neutral push; 400 when it is not one.
 * For an annotated tag `after` becomes the tagged commit, the revision Argo CD reports once it syncs.
 * Files: the union of `commits[]` lists unless the push was forced, created or cut (`refChangeFiles`,
 * `listedCommitFiles`).
 */
export function normalizeGitHubPush(body: unknown, meta: DeliveryMeta): NormalizedPush {
  const payload = payloadObject(body);
  const update = readRefUpdate(payload);
  const repo = githubRepository(requireRecord(payload, 'repository'));
  const parsed = parseRef(update.ref);
  if (parsed === undefined) return notBranchOrTag(update.ref);

  // An annotated tag's `after` is the tag object; Argo CD reports the tagged commit, which is `head_commit`.
  const headCommit = optionalRecord(payload, 'head_commit');
  const change = refChange(update, parsed, {
    deleted: optionalBoolean(payload, 'deleted') || isZeroSha(update.after),
    created: optionalBoolean(payload, 'created') || isZeroSha(update.before),
    forced: optionalBoolean(payload, 'forced'),
    tagged: optionalString(headCommit, 'id')?.toLowerCase(),
  });
  const pusher = person(optionalRecord(payload, 'pusher'));
  const author = person(optionalRecord(headCommit, 'author')) ??
    pusher ?? { name: optionalString(optionalRecord(payload, 'sender'), 'login') ?? 'unknown' };
  return pushOf('github', meta, {
    repo,
    change,
    head: {
      author,
      pusher,
      title: firstLine(optionalString(headCommit, 'message')),
      link: optionalString(headCommit, 'url'),
    },
    files: refChangeFiles(change, () => listedCommitFiles(commitList(payload), change, { caps: CAPS })),
  });
}

function githubRepository(repository: JsonRecord): PushRepository {
  const base = htmlRepository(repository, ['clone_url', 'ssh_url', 'git_url', 'svn_url']);
  const apiBaseUrl = githubApiBase(repository, base.webUrl);
  const webLikeUrl = httpUrl(optionalString(repository, 'url'));
  // In push payloads `url` is the web URL; in other events it is the API URL, which is not a repo URL.
  const webLike = webLikeUrl !== undefined && !webLikeUrl.startsWith(apiBaseUrl) ? webLikeUrl : undefined;
  return { ...base, urls: uniqueStrings([...base.urls, webLike]), apiBaseUrl };
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

/** A body must be the event it is named as (a `package` body is read as a registry push); 400 otherwise. */
function checkGitHubPush(eventName: string, body: JsonRecord): string | undefined {
  if ((eventName === GHCR_EVENT) !== isPackageEvent(body)) {
    throw new BadRequestError(`body is not a GitHub ${eventName} event`, { code: 'invalid-payload' });
  }
  return eventName === GHCR_EVENT ? ghcrIgnored(body) : undefined;
}
