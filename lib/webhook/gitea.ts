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

/**
 * A Gitea, Forgejo or Gogs `push` payload (GitHub-shaped: `ref`, `before`, `after`, `commits[]` with
 * added/removed/modified) → a provider-neutral push. Gitea says how many commits the push had in
 * `total_commits`; a list shorter than that was cut, so the files are then unknown.
 */
export function normalizeGiteaPush(payload: unknown, meta: DeliveryMeta): NormalizedPush {
  if (!isRecord(payload)) throw notAnObject();
  const { ref, before, after: pushedSha } = readRefUpdate(payload);
  const repo = giteaRepository(requireRecord(payload, 'repository'));
  const parsed = parseRef(ref);
  if (parsed === undefined) return notBranchOrTag(ref);
  const deleted = isZeroSha(pushedSha);
  const created = isZeroSha(before);
  const forced = optionalBoolean(payload, 'forced');
  const commits = commitList(payload);
  const headCommit =
    optionalRecord(payload, 'head_commit') ??
    commits?.filter(isRecord).find((c) => c.id === pushedSha) ??
    commits?.filter(isRecord).at(-1);
  // An annotated tag's `after` may be the tag object; Argo CD reports the tagged commit.
  const after = peeled(parsed, deleted, pushedSha, optionalString(headCommit, 'id')?.toLowerCase());
  const pusher = person(optionalRecord(payload, 'pusher'));
  const push = { before, after: pushedSha, created, deleted, forced };
  return pushOf({ provider: 'gitea', commitPath: '/commit/' }, meta, {
    repo,
    ref,
    parsed,
    before,
    after,
    created,
    deleted,
    forced,
    author: person(optionalRecord(headCommit, 'author')) ?? pusher ?? { name: 'unknown' },
    pusher,
    commitTitle: firstLine(optionalString(headCommit, 'message')),
    commitLink: optionalString(headCommit, 'url'),
    changedFiles: refChangeFiles(push, () => listedFiles(payload, commits, push)),
  });
}

function listedFiles(
  payload: JsonRecord,
  commits: readonly unknown[] | undefined,
  push: { before: string; after: string },
): ChangedFiles {
  if (commits === undefined) return unknownFiles('no-commit-list');
  const total = payload.total_commits;
  if (typeof total === 'number' && total > commits.length) return unknownFiles('truncated');
  if (commits.length === 0) {
    return push.before === push.after ? { known: true, files: [] } : unknownFiles('no-commit-list');
  }
  return unionCommitFiles(commits);
}

function giteaRepository(repository: JsonRecord): PushRepository {
  const webUrl = httpUrl(requireString(repository, 'html_url', 'repository.html_url'));
  if (webUrl === undefined) throw wrongType('repository.html_url', 'an http(s) URL');
  const defaultBranch = optionalString(repository, 'default_branch');
  return {
    fullName: optionalString(repository, 'full_name') ?? new URL(webUrl).pathname.replace(/^\/+|\/+$/g, ''),
    webUrl,
    urls: uniqueStrings([
      webUrl,
      optionalString(repository, 'clone_url'),
      optionalString(repository, 'ssh_url'),
    ]),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
  };
}

function person(record: JsonRecord | undefined): PushAuthor | undefined {
  const name = optionalString(record, 'full_name') ?? optionalString(record, 'name');
  return personOf(name, optionalString(record, 'username') ?? optionalString(record, 'login'));
}
