import { isRecord, type JsonRecord, wrongType } from './payload-fields.js';
import type { ChangedFiles, UnknownFilesReason } from './push-event.js';

const FILE_LISTS = ['added', 'modified', 'removed'] as const;

export interface CommitListCaps {
  /** A list this long may have been cut by the provider. */
  readonly maxCommits?: number;
  /** A commit listing this many files (all three lists together) may have been cut. */
  readonly maxFilesPerCommit?: number;
}

export function unknownFiles(reason: UnknownFilesReason): ChangedFiles {
  return { known: false, reason };
}

/** `commits` as given: undefined when absent or null, a 400 when it is not a list. */
export function commitList(body: JsonRecord): readonly unknown[] | undefined {
  const commits = body.commits;
  if (commits === undefined || commits === null) return undefined;
  if (!Array.isArray(commits)) throw wrongType('commits', 'a list');
  return commits;
}

/**
 * The union of added, modified and removed paths over every listed commit, first-seen order (a rename
 * shows as removed old path + added new path). Unknown when a commit carries no lists (GitLab system
 * hooks) or a list reaches a provider cap, since a cut list would silently miss refreshes.
 */
export function unionCommitFiles(commits: readonly unknown[], caps: CommitListCaps = {}): ChangedFiles {
  if (caps.maxCommits !== undefined && commits.length >= caps.maxCommits) return unknownFiles('truncated');
  const files = new Set<string>();
  for (const [index, commit] of commits.entries()) {
    if (!isRecord(commit)) throw wrongType(`commits[${index}]`, 'an object');
    let count = 0;
    for (const key of FILE_LISTS) {
      const list = commit[key];
      if (list === undefined || list === null) return unknownFiles('no-commit-list');
      if (!Array.isArray(list) || !list.every((path) => typeof path === 'string')) {
        throw wrongType(`commits[${index}].${key}`, 'a list of paths');
      }
      count += list.length;
      for (const path of list) if (path !== '') files.add(path);
    }
    if (caps.maxFilesPerCommit !== undefined && count >= caps.maxFilesPerCommit) {
      return unknownFiles('truncated');
    }
  }
  return { known: true, files: [...files] };
}

/**
 * What a GitHub-shaped `commits` list says, past the deleted/created/forced checks. No list, or an
 * empty one while the ref moved: unknown (GitHub sends that for rewinds and oversize pushes). A
 * `total` above the listed count (Gitea's `total_commits`), or a cap reached: unknown `truncated`.
 * Otherwise the union of every commit's lists, so a pushed empty commit gives a known-empty list.
 */
export function listedCommitFiles(
  commits: readonly unknown[] | undefined,
  push: { readonly before: string; readonly pushed: string },
  listing: { readonly total?: unknown; readonly caps?: CommitListCaps } = {},
): ChangedFiles {
  if (commits === undefined) return unknownFiles('no-commit-list');
  if (typeof listing.total === 'number' && listing.total > commits.length) return unknownFiles('truncated');
  if (commits.length === 0) {
    return push.before === push.pushed ? { known: true, files: [] } : unknownFiles('no-commit-list');
  }
  return unionCommitFiles(commits, listing.caps);
}
