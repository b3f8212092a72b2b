import { unknownFiles } from './commit-files.js';
import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import type { ParsedRef } from './git-ref.js';
import {
  httpUrl,
  isCommitSha,
  type JsonRecord,
  quoted,
  requireCommitSha,
  requireString,
} from './payload-fields.js';
import type { ChangedFiles, GitProvider, PushAuthor, PushRepository } from './push-event.js';

/** What stays the same for every push one host sends. */
export interface PushStyle {
  readonly provider: GitProvider;
  /** Appended to the web URL before the SHA when the payload gives no commit link (`/-/commit/`). */
  readonly commitPath?: string;
  /** Without a named default branch, every branch push counts as touching it (Argo CD's rule). */
  readonly everyBranchIsDefault?: boolean;
}

/** What a host's normaliser reads off one ref change; `pushOf` makes the provider-neutral event. */
export interface PushFacts {
  readonly repo: PushRepository;
  readonly ref: string;
  readonly parsed: ParsedRef;
  readonly before: string;
  /** The commit the ref points at now (a tag already peeled, see `peeled`). */
  readonly after: string;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly forced: boolean;
  readonly author: PushAuthor;
  readonly pusher?: PushAuthor | undefined;
  readonly commitTitle: string;
  /** The payload's link to the head commit, when it gives one (non-http links are dropped). */
  readonly commitLink?: string | undefined;
  readonly changedFiles: ChangedFiles;
}

const PUSH_KEYS = { ref: 'ref', before: 'before', after: 'after' } as const;

/** A ref change's three fields read off `record` (each 400 names `path.key`, or `key` at the top). */
export function readRefUpdate(
  record: JsonRecord,
  keys: { readonly ref: string; readonly before: string; readonly after: string } = PUSH_KEYS,
  path?: string,
): { ref: string; before: string; after: string } {
  const at = (key: string) => (path === undefined ? key : `${path}.${key}`);
  return {
    ref: requireString(record, keys.ref, at(keys.ref)),
    before: requireCommitSha(record, keys.before, at(keys.before)),
    after: requireCommitSha(record, keys.after, at(keys.after)),
  };
}

export function notBranchOrTag(ref: string): NormalizedPush {
  return { kind: 'ignored', reason: `ref ${quoted(ref)} is neither a branch nor a tag` };
}

/** An annotated tag's pushed object is the tag; Argo CD reports the tagged commit, when the payload names it. */
export function peeled(
  parsed: ParsedRef,
  deleted: boolean,
  pushed: string,
  tagged: string | undefined,
): string {
  return parsed.refType === 'tag' && !deleted && isCommitSha(tagged) ? tagged : pushed;
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

export function pushOf(style: PushStyle, meta: DeliveryMeta, facts: PushFacts): NormalizedPush {
  const { repo, parsed, after, deleted, pusher } = facts;
  const defaultBranch = repo.defaultBranch ?? (style.everyBranchIsDefault ? parsed.refName : undefined);
  const commitUrl =
    httpUrl(facts.commitLink) ??
    (deleted || style.commitPath === undefined ? undefined : `${repo.webUrl}${style.commitPath}${after}`);
  return {
    kind: 'push',
    event: {
      provider: style.provider,
      deliveryId: meta.deliveryId,
      repo,
      ref: facts.ref,
      refType: parsed.refType,
      refName: parsed.refName,
      before: facts.before,
      after,
      touchedDefaultBranch: parsed.refType === 'branch' && parsed.refName === defaultBranch,
      created: facts.created,
      deleted,
      forced: facts.forced,
      author: facts.author,
      ...(pusher === undefined ? {} : { pusher }),
      commitTitle: facts.commitTitle,
      ...(commitUrl === undefined ? {} : { commitUrl }),
      changedFiles: facts.changedFiles,
      receivedAt: meta.receivedAt,
    },
  };
}
