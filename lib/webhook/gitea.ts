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

/**
 * A Gitea, Forgejo or Gogs `push` payload (GitHub-shaped: `ref`, `before`, `after`, `commits[]` with
 * added/removed/modified) → a provider-neutral push. Gitea says how many commits the push had in
 * `total_commits`; a list shorter than that was cut, so the files are then unknown.
 */
export function normalizeGiteaPush(payload: unknown, meta: DeliveryMeta): NormalizedPush {
  if (!isRecord(payload)) throw notAnObject();
  const ref = requireString(payload, 'ref');
  const before = requireCommitSha(payload, 'before');
  const pushedSha = requireCommitSha(payload, 'after');
  const repo = giteaRepository(requireRecord(payload, 'repository'));
  const parsed = parseRef(ref);
  if (parsed === undefined)
    return { kind: 'ignored', reason: `ref ${quoted(ref)} is neither a branch nor a tag` };
  const deleted = isZeroSha(pushedSha);
  const created = isZeroSha(before);
  const commits = commitList(payload);
  const headCommit =
    optionalRecord(payload, 'head_commit') ??
    commits?.filter(isRecord).find((c) => c.id === pushedSha) ??
    commits?.filter(isRecord).at(-1);
  const headId = optionalString(headCommit, 'id')?.toLowerCase();
  // An annotated tag's `after` may be the tag object; Argo CD reports the tagged commit.
  const after = parsed.refType === 'tag' && !deleted && isCommitSha(headId) ? headId : pushedSha;
  const pusher = person(optionalRecord(payload, 'pusher'));
  const author = person(optionalRecord(headCommit, 'author')) ?? pusher ?? { name: 'unknown' };
  const commitUrl =
    httpUrl(optionalString(headCommit, 'url')) ?? (deleted ? undefined : `${repo.webUrl}/commit/${after}`);
  const forced = optionalBoolean(payload, 'forced');
  return {
    kind: 'push',
    event: {
      provider: 'gitea',
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
      changedFiles: giteaChangedFiles(payload, commits, {
        before,
        after: pushedSha,
        created,
        deleted,
        forced,
      }),
      receivedAt: meta.receivedAt,
    },
  };
}

function giteaChangedFiles(
  payload: JsonRecord,
  commits: readonly unknown[] | undefined,
  push: { before: string; after: string; created: boolean; deleted: boolean; forced: boolean },
): ChangedFiles {
  if (push.deleted) return { known: true, files: [] };
  if (push.created) return unknownFiles('created');
  if (push.forced) return unknownFiles('forced');
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
  const username = optionalString(record, 'username') ?? optionalString(record, 'login');
  if (name === undefined) return username === undefined ? undefined : { name: username, username };
  return username === undefined ? { name } : { name, username };
}
