import { unknownFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import type { ParsedRef } from './git-ref.js';
import {
  httpUrl,
  isCommitSha,
  isRecord,
  isZeroSha,
  type JsonRecord,
  missingField,
  quoted,
  requireCommitSha,
  requireString,
  wrongType,
} from './payload-fields.js';
import type { ChangedFiles, GitProvider, PushAuthor, PushRepository } from './push-event.js';

/** What stays the same for every push one host sends. */
interface PushStyle {
  /** Appended to the web URL before the SHA when the payload gives no commit link (`/-/commit/`). */
  readonly commitPath?: string;
  /**
   * Without a named default branch, every branch push counts as touching it (Argo CD's rule): the
   * Bitbucket payloads never name it, the generic body may leave it out (fail open for HEAD apps).
   */
  readonly everyBranchIsDefault?: boolean;
}

const PUSH_STYLES: Readonly<Record<GitProvider, PushStyle>> = {
  github: { commitPath: '/commit/' },
  gitlab: { commitPath: '/-/commit/' },
  bitbucket: { commitPath: '/commits/', everyBranchIsDefault: true },
  'bitbucket-server': { commitPath: '/commits/', everyBranchIsDefault: true },
  'azure-devops': { commitPath: '/commit/' },
  gitea: { commitPath: '/commit/' },
  // No commit links: the generic body names no host.
  generic: { everyBranchIsDefault: true },
  // Registry pushes are not ref changes (lib/webhook/ecr.ts builds them); listed for completeness.
  ecr: {},
  harbor: {},
};

/** A ref's three fields as the payload gives them. */
export interface RefUpdate {
  readonly ref: string;
  readonly before: string;
  readonly after: string;
}

/** One branch or tag change, as the provider-neutral event states it. */
export interface RefChange {
  readonly ref: string;
  readonly parsed: ParsedRef;
  readonly before: string;
  /** The object pushed: for an annotated tag, the tag object. */
  readonly pushed: string;
  /** The commit the ref points at now: `pushed`, or an annotated tag's commit. */
  readonly after: string;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly forced: boolean;
}

/** The head commit as the event shows it. */
export interface HeadCommit {
  readonly author: PushAuthor;
  readonly pusher?: PushAuthor | undefined;
  readonly title: string;
  /** The payload's link to the commit, when it gives one (non-http links are dropped). */
  readonly link?: string | undefined;
}

const PUSH_KEYS = { ref: 'ref', before: 'before', after: 'after' } as const;

/** A ref change's three fields read off `record` (each 400 names `path.key`, or `key` at the top). */
export function readRefUpdate(
  record: JsonRecord,
  keys: { readonly ref: string; readonly before: string; readonly after: string } = PUSH_KEYS,
  path?: string,
): RefUpdate {
  const at = (key: string) => (path === undefined ? key : `${path}.${key}`);
  return {
    ref: requireString(record, keys.ref, at(keys.ref)),
    before: requireCommitSha(record, keys.before, at(keys.before)),
    after: requireCommitSha(record, keys.after, at(keys.after)),
  };
}

/**
 * A payload that lists its ref changes (`parent[key]`, a list, required): each entry, an object, read by
 * `read` with its dotted path (`push.changes[0]`) for the 400s.
 */
export function eachRefChange(
  parent: JsonRecord,
  key: string,
  path: string,
  read: (entry: JsonRecord, path: string) => NormalizedPush,
): NormalizedPush[] {
  const list = parent[key];
  if (!Array.isArray(list)) throw missingField(path);
  return list.map((entry, index) => {
    const at = `${path}[${index}]`;
    if (!isRecord(entry)) throw wrongType(at, 'an object');
    return read(entry, at);
  });
}

export function notBranchOrTag(ref: string): NormalizedPush {
  return { kind: 'ignored', reason: `ref ${quoted(ref)} is neither a branch nor a tag` };
}

/**
 * The change a ref update made. Created and deleted default to an all-zero side; forced to false.
 * `tagged`: the commit an annotated tag points at, which Argo CD reports once it syncs; it becomes
 * `after` for a tag that was not deleted, when it is a commit SHA.
 */
export function refChange(
  update: RefUpdate,
  parsed: ParsedRef,
  given: { created?: boolean; deleted?: boolean; forced?: boolean; tagged?: string | undefined } = {},
): RefChange {
  const deleted = given.deleted ?? isZeroSha(update.after);
  const tagged = given.tagged;
  const peel = parsed.refType === 'tag' && !deleted && isCommitSha(tagged);
  return {
    ref: update.ref,
    parsed,
    before: update.before,
    pushed: update.after,
    after: peel ? tagged : update.after,
    created: given.created ?? isZeroSha(update.before),
    deleted,
    forced: given.forced ?? false,
  };
}

/**
 * Deleted: nothing left to refresh (known empty; the edge ignores deletions anyway). Created: no base
 * to compare with. Forced: a listing shows only new work, not what the rewrite dropped. Otherwise what
 * the payload lists (`listed`), unknown when it lists nothing.
 */
export function refChangeFiles(
  push: { readonly created: boolean; readonly deleted: boolean; readonly forced: boolean },
  listed: () => ChangedFiles = () => unknownFiles('no-commit-list'),
): ChangedFiles {
  if (push.deleted) return { known: true, files: [] };
  if (push.created) return unknownFiles('created');
  if (push.forced) return unknownFiles('forced');
  return listed();
}

/** A name and a user name as a person: the user name stands in for a missing name. */
export function personOf(name: string | undefined, username: string | undefined): PushAuthor | undefined {
  if (name === undefined) return username === undefined ? undefined : { name: username, username };
  return username === undefined ? { name } : { name, username };
}

/** The provider-neutral push event of one ref change. */
export function pushOf(
  provider: GitProvider,
  meta: DeliveryMeta,
  push: { repo: PushRepository; change: RefChange; head: HeadCommit; files: ChangedFiles },
): NormalizedPush {
  const { repo, change, head } = push;
  const style = PUSH_STYLES[provider];
  const { parsed, after, deleted } = change;
  const defaultBranch = repo.defaultBranch ?? (style.everyBranchIsDefault ? parsed.refName : undefined);
  const commitUrl =
    httpUrl(head.link) ??
    (deleted || style.commitPath === undefined ? undefined : `${repo.webUrl}${style.commitPath}${after}`);
  return {
    kind: 'push',
    event: {
      provider,
      deliveryId: meta.deliveryId,
      repo,
      ref: change.ref,
      refType: parsed.refType,
      refName: parsed.refName,
      before: change.before,
      after,
      touchedDefaultBranch: parsed.refType === 'branch' && parsed.refName === defaultBranch,
      created: change.created,
      deleted,
      forced: change.forced,
      author: head.author,
      ...(head.pusher === undefined ? {} : { pusher: head.pusher }),
      commitTitle: head.title,
      ...(commitUrl === undefined ? {} : { commitUrl }),
      changedFiles: push.files,
      receivedAt: meta.receivedAt,
    },
  };
}
