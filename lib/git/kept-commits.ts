import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HttpClient } from 'isomorphic-git';
import { errorMessage, type UpstreamError } from '../errors.js';
import type { Logger } from '../ports.js';
import { type CommitSeed, fetchCommit } from './commit-fetch.js';
import { gitAuthCallbacks } from './credentials.js';
import { frozenGitFs, type GitFs } from './frozen-fs.js';
import { toGitError } from './git-errors.js';
import { gitTreeSource } from './git-tree.js';
import type { TreeSource } from './manifest-types.js';
import type { GitRepo } from './remote-refs.js';
import { fetchableRepoUrl } from './repo-url.js';

export interface KeptCommitsOptions {
  /** The directory the commits' git directories are made under (one `git-reader-*` folder). */
  readonly cacheDir: string;
  readonly fallbackDepth: number;
  /** The transport for one fetch, told when a response body fails midway. */
  readonly transport: (onBodyError: (error: UpstreamError) => void) => HttpClient;
  readonly logger?: Logger;
  /** The file system a kept commit is read through (default `frozenGitFs()`; tests inject faults). */
  readonly readFs?: () => GitFs;
}

interface KeptCommit {
  readonly gitdir: Promise<string>;
  /** The repository's key (allow-list form), and the git directory once the fetch is done. */
  readonly key: string;
  readonly sha: string;
  /** isomorphic-git's cache for this directory alone (its keys are paths): dropped with the commit. */
  readonly cache: object;
  ready?: string;
  /** The commit's tree, read through one source for every read of it (its listings kept with it). */
  tree?: Promise<TreeSource>;
  used: number;
  /**
   * A read of it failed for another reason than a missing path (a file system error, a pack it cannot
   * use): its reads in this session keep failing alike (the read-only fs view remembers a failed listing
   * or stat), and it is dropped when no session is open, so the next one fetches it again. Never a seed.
   */
  broken?: true;
}

/**
 * Fetched commits on disk, one git directory each, keyed by repository and SHA: a commit is fetched once
 * however many reads name it, the next commit of a repository on top of its most recently used one (the
 * seed); when `evict` runs, those a read found broken go first, then the least recently used.
 */
export function createKeptCommits(options: KeptCommitsOptions) {
  const commits = new Map<string, KeptCommit>();
  let clock = 0;
  let fetchedCount = 0;
  let workDir: Promise<string> | undefined;

  const fetched = (repo: GitRepo, key: string, sha: string, ref: string | undefined): KeptCommit => {
    const cacheKey = `${key}@${sha}`;
    const kept = commits.get(cacheKey);
    if (kept !== undefined) {
      kept.used = ++clock;
      return kept;
    }
    const base = options.cacheDir;
    workDir ??= mkdir(base, { recursive: true }).then(() => mkdtemp(join(base, 'git-reader-')));
    const index = fetchedCount++;
    // The repository's most recently used commit already on disk: the new one is fetched on top of it.
    const seed = seedFor(key);
    // isomorphic-git's cache (pack indexes and pack files, by path) goes with the commit when it is evicted.
    const cache = {};
    const startedAt = Date.now();
    const gitdir = workDir.then(async (dir) => {
      const gitdir = join(dir, String(index));
      let bodyError: UpstreamError | undefined;
      try {
        const { via, seeded } = await fetchCommit({
          gitdir,
          url: fetchableRepoUrl(repo.url),
          sha,
          ...(ref === undefined ? {} : { ref }),
          fallbackDepth: options.fallbackDepth,
          http: options.transport((error) => {
            bodyError ??= error;
          }),
          auth: gitAuthCallbacks(repo.auth, repo.provider),
          cache,
          ...(seed === undefined ? {} : { seed }),
        });
        if (bodyError !== undefined) throw bodyError;
        options.logger?.debug('git commit fetched', {
          repo: key,
          sha,
          via,
          ...(seeded && seed !== undefined ? { seededFrom: seed.sha } : {}),
          // From the fetch's start (the first read or head start naming the commit) to its pack on disk.
          ms: Date.now() - startedAt,
        });
        return gitdir;
      } catch (error) {
        throw toGitError(bodyError ?? error, key, 'fetching a commit of');
      }
    });
    // A failed fetch is not kept: the next session tries again.
    gitdir.catch(() => {
      if (commits.get(cacheKey)?.gitdir === gitdir) commits.delete(cacheKey);
    });
    const entry: KeptCommit = { gitdir, key, sha, cache, used: ++clock };
    gitdir.then(
      (dir) => {
        entry.ready = dir;
      },
      () => undefined,
    );
    commits.set(cacheKey, entry);
    return entry;
  };

  /**
   * The seed for a new commit of `key`: its most recently used commit fetched, kept and readable. Eviction
   * runs only while no session is open, and a fetch runs within one, so the seed's directory outlives the
   * linking.
   */
  const seedFor = (key: string): CommitSeed | undefined => {
    let best: KeptCommit | undefined;
    for (const kept of commits.values())
      if (
        kept.key === key &&
        kept.ready !== undefined &&
        kept.broken !== true &&
        (best === undefined || kept.used > best.used)
      )
        best = kept;
    return best?.ready === undefined ? undefined : { gitdir: best.ready, sha: best.sha };
  };

  const settled = async (): Promise<void> => {
    await Promise.allSettled([...commits.values()].map((c) => c.gitdir));
  };

  return {
    /** The commit is kept (fetched or on its way) and no read of it failed. */
    has: (key: string, sha: string) => {
      const kept = commits.get(`${key}@${sha}`);
      return kept !== undefined && kept.broken !== true;
    },
    /** The commit's tree, one source per kept commit: every app's read shares its listings. */
    treeOf(repo: GitRepo, key: string, sha: string, ref: string | undefined): Promise<TreeSource> {
      const kept = fetched(repo, key, sha, ref);
      kept.tree ??= kept.gitdir.then((gitdir) =>
        breaksOnFailure(
          gitTreeSource({ gitdir, oid: sha, cache: kept.cache, fs: (options.readFs ?? frozenGitFs)() }),
          (error) => {
            if (kept.broken) return;
            kept.broken = true;
            options.logger?.warn('git commit unreadable: fetched again in the next session', {
              repo: key,
              sha,
              error: errorMessage(error),
            });
          },
        ),
      );
      return kept.tree;
    },
    /** Resolves once every fetch started has ended (fetched or failed). */
    settled,
    /**
     * Drops the commits a read found broken, then the least recently used beyond `keep`, their directories
     * removed; the keys (`repo@sha`) of those dropped. Only while nothing reads: a fetch may be linking a
     * kept commit's packs.
     */
    async evict(keep: number): Promise<string[]> {
      const broken = [...commits.entries()].filter(([, kept]) => kept.broken === true);
      const rest = [...commits.entries()].filter(([, kept]) => kept.broken !== true);
      const old = [
        ...broken,
        ...rest.sort((a, b) => a[1].used - b[1].used).slice(0, Math.max(0, rest.length - keep)),
      ];
      if (old.length === 0) return [];
      for (const [cacheKey, kept] of old) {
        commits.delete(cacheKey);
        const dir = await kept.gitdir.catch(() => undefined);
        if (dir !== undefined) await rm(dir, { recursive: true, force: true });
      }
      return old.map(([cacheKey]) => cacheKey);
    },
    /** Removes every fetched commit; a read after it fetches again instead of reading a removed dir. */
    async close(): Promise<void> {
      const dir = await workDir?.catch(() => undefined);
      await settled();
      workDir = undefined;
      commits.clear();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `source` whose failed reads (a missing path is an answer, not a failure) are told to `failed` first. */
function breaksOnFailure(source: TreeSource, failed: (error: unknown) => void): TreeSource {
  const told = <T>(read: Promise<T>): Promise<T> =>
    read.catch((error: unknown) => {
      failed(error);
      throw error;
    });
  const { directoryId } = source;
  return {
    listDirectory: (path) => told(source.listDirectory(path)),
    readFile: (path) => told(source.readFile(path)),
    ...(directoryId === undefined
      ? {}
      : { directoryId: (path: string) => told(directoryId.call(source, path)) }),
  };
}
