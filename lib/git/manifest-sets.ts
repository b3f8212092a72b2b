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
 * How much a reader pool's kept sets may hold, each of its three maps on its own (they hold the same set
 * objects, but for the few one map has dropped and another not yet).
 */
export interface SetBounds {
  /** Sets (default `KEEP_SETS`): each costs its keys and arrays, ~1 KB, whatever its files. */
  readonly sets: number;
  /** Bytes of the manifest files the sets were read from (default `KEEP_SET_BYTES`). */
  readonly bytes: number;
}

/** Enough for a reconcile pass over thousands of distinct app paths to find them kept at its next pass. */
export const KEEP_SETS = 10_000;

/**
 * A set's documents hold ~12 bytes of heap per byte of file read (5,000 directories of 384 bytes: 23 MB).
 * They are mostly the parse memo's own (same text, same parse) while both hold the same files; this bound
 * keeps what they hold beyond it under ~50 MB when they do not.
 */
export const KEEP_SET_BYTES = 4_000_000;

/**
 * The manifest sets a reader pool keeps (each map within `bounds`, least recently used out first): by commit
 * and read; by the directory's tree id, for a read that looked only inside its directory (`readWithin`), so a
 * later commit where the directory is the same tree gets the set without a file read; and those same sets by
 * commit, for a push that names its changed files (`unchangedSince`) to be answered before its commit is
 * fetched. A set a bound cut short is never kept by tree id (the time bound depends on the moment).
 */
export function createManifestSets(bounds: SetBounds) {
  const keep = bounds.sets;
  const byCommit = weightedLru<Promise<ManifestSet>>(bounds);
  const byTree = weightedLru<ManifestSet>(bounds);
  const selfContained = weightedLru<ManifestSet>(bounds);
  const put = <T extends ManifestSet | Promise<ManifestSet>>(map: WeightedLru<T>, key: string, value: T) =>
    map.set(key, value, weightOf(value));
  const commitKey = (read: SetRead, sha = read.sha) => `${read.repoKey}@${sha}${read.readKey}`;

  /** The set at the commit before, when the push left the directory alone and its read stayed inside it. */
  const unchanged = (read: SetRead): Promise<ManifestSet> | undefined => {
    const since = read.unchangedSince;
    if (since === undefined) return undefined;
    const root = manifestRoot(read.path);
    if (root === undefined || root === '' || touches(since.files, root)) return undefined;
    const before = selfContained.get(commitKey(read, since.sha));
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
      return byCommit.get(commitKey(read)) ?? unchanged(read);
    },
    /** Keeps a read in flight by its commit; a failed one is dropped (the next read tries again). */
    remember(read: SetRead, set: Promise<ManifestSet>): void {
      if (keep === 0) return;
      const key = commitKey(read);
      put(byCommit, key, set);
      // Weighed once read; a failed one is dropped.
      set.then(
        (got) => byCommit.weigh(key, set, weightOf(got)),
        () => byCommit.delete(key),
      );
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
      const known = byTree.get(treeKey);
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
      for (const map of [byCommit, selfContained] as const)
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

/** A set's weight: the bytes of its files, or nothing yet for one still being read. */
function weightOf(value: ManifestSet | Promise<ManifestSet>): number {
  return value instanceof Promise ? 0 : (value.bytes ?? 0);
}

interface WeightedLru<T> {
  get(key: string): T | undefined;
  set(key: string, value: T, weight: number): void;
  /** Gives a kept value its weight once known (nothing if the key now holds another). */
  weigh(key: string, value: T, weight: number): void;
  delete(key: string): void;
  keys(): IterableIterator<string>;
  clear(): void;
}

/** A Map in use order (most recently used last: the eviction order) within a count and a total weight. */
function weightedLru<T>(bounds: SetBounds): WeightedLru<T> {
  const map = new Map<string, { value: T; weight: number }>();
  let total = 0;
  const drop = (key: string) => {
    const entry = map.get(key);
    if (entry === undefined) return;
    map.delete(key);
    total -= entry.weight;
  };
  const evict = () => {
    for (const oldest of map.keys()) {
      if (map.size <= bounds.sets && total <= bounds.bytes) break;
      drop(oldest);
    }
  };
  return {
    get(key) {
      const entry = map.get(key);
      if (entry === undefined) return undefined;
      map.delete(key);
      map.set(key, entry);
      return entry.value;
    },
    set(key, value, weight) {
      drop(key);
      // One larger than the whole bound is not kept, rather than pushing every other out for nothing.
      if (weight > bounds.bytes) return;
      map.set(key, { value, weight });
      total += weight;
      evict();
    },
    weigh(key, value, weight) {
      const entry = map.get(key);
      if (entry?.value !== value) return;
      if (weight > bounds.bytes) {
        drop(key);
        return;
      }
      total += weight - entry.weight;
      entry.weight = weight;
      evict();
    },
    delete: drop,
    keys: () => map.keys(),
    clear() {
      map.clear();
      total = 0;
    },
  };
}
