import { isWithin, readWithin } from './directory-reads.js';
import { manifestRoot } from './manifest-collect.js';
import type { ManifestSet, TreeSource } from './manifest-types.js';

/** One read of a source's directory, as the kept sets know it. */
export interface SetRead {
  /** The repository's key (allow-list form) and the full commit SHA, lower case. */
  readonly repoKey: string;
  readonly sha: string;
  /** The source's `path`. */
  readonly path: string;
  /** What the set depends on besides the tree it is read in: the path, the recursion and the bounds. */
  readonly readKey: string;
  /** `ReadManifestsRequest.unchangedSince`, its SHA full and lower case. */
  readonly unchangedSince?: { readonly sha: string; readonly files: readonly string[] };
}

/**
 * The manifest sets a reader pool keeps (each map at most `keep`, least recently used out first): by commit
 * and read; by the directory's tree id, for a read that looked only inside its directory (`readWithin`), so a
 * later commit where the directory is the same tree gets the set without a file read; and those same sets by
 * commit, for a push that names its changed files (`unchangedSince`) to be answered before its commit is
 * fetched. A set a bound cut short is never kept by tree id (the time bound depends on the moment).
 */
export function createManifestSets(keep: number) {
  const byCommit = new Map<string, Promise<ManifestSet>>();
  const byTree = new Map<string, ManifestSet>();
  const selfContained = new Map<string, ManifestSet>();
  // Most recently used last: a Map's order is the eviction order.
  const used = <T>(map: Map<string, T>, key: string): T | undefined => {
    const known = map.get(key);
    if (known !== undefined) {
      map.delete(key);
      map.set(key, known);
    }
    return known;
  };
  const put = <T>(map: Map<string, T>, key: string, value: T) => {
    map.set(key, value);
    while (map.size > keep) map.delete(map.keys().next().value as string);
  };
  const commitKey = (read: SetRead, sha = read.sha) => `${read.repoKey}@${sha}${read.readKey}`;

  /** The set at the commit before, when the push left the directory alone and its read stayed inside it. */
  const unchanged = (read: SetRead): Promise<ManifestSet> | undefined => {
    const since = read.unchangedSince;
    if (since === undefined) return undefined;
    const root = manifestRoot(read.path);
    if (root === undefined || root === '' || touches(since.files, root)) return undefined;
    const before = used(selfContained, commitKey(read, since.sha));
    if (before === undefined) return undefined;
    const answer = Promise.resolve(before);
    put(byCommit, commitKey(read), answer);
    put(selfContained, commitKey(read), before);
    return answer;
  };

  return {
    /** A kept answer: the set read at this commit, or at the commit before when `unchangedSince` allows. */
    known(read: SetRead): Promise<ManifestSet> | undefined {
      if (keep === 0) return undefined;
      return used(byCommit, commitKey(read)) ?? unchanged(read);
    },
    /** Keeps a read in flight by its commit; a failed one is dropped (the next read tries again). */
    remember(read: SetRead, set: Promise<ManifestSet>): void {
      if (keep === 0) return;
      const key = commitKey(read);
      put(byCommit, key, set);
      set.catch(() => byCommit.delete(key));
    },
    /** The set read in `tree` by `collect`, or the one kept for the same directory tree. */
    async collect(
      read: SetRead,
      tree: TreeSource,
      collect: (tree: TreeSource) => Promise<ManifestSet>,
    ): Promise<ManifestSet> {
      const root = manifestRoot(read.path);
      const id = keep === 0 || root === undefined || root === '' ? undefined : await tree.directoryId?.(root);
      if (root === undefined || id === undefined) return collect(tree);
      const treeKey = `${read.repoKey}#${id}${read.readKey}`;
      const known = used(byTree, treeKey);
      if (known !== undefined) {
        put(selfContained, commitKey(read), known);
        return known;
      }
      const within = readWithin(tree, root);
      const set = await collect(within.source);
      if (within.stayedInside() && set.limitReached === undefined) {
        put(byTree, treeKey, set);
        put(selfContained, commitKey(read), set);
      }
      return set;
    },
    /** Drops what was kept by commit for an evicted commit (`repoKey@sha`). */
    dropCommit(cacheKey: string): void {
      for (const map of [byCommit, selfContained])
        for (const key of [...map.keys()]) if (key.startsWith(`${cacheKey}:`)) map.delete(key);
    },
    clear(): void {
      byCommit.clear();
      byTree.clear();
      selfContained.clear();
    },
  };
}

/** A changed file is in directory `root`, or is `root` itself (a leading `/` on a file is ignored). */
function touches(files: readonly string[], root: string): boolean {
  return files.some((file) => isWithin(file.replace(/^\/+/, ''), root));
}
