import { tmpdir } from 'node:os';
import type { HttpClient } from 'isomorphic-git';
import { AppError, type UpstreamError } from '../errors.js';
import type { Logger } from '../ports.js';
import { createGitHttpClient } from './http-client.js';
import { createKeptCommits } from './kept-commits.js';
import { collectManifests } from './manifest-collect.js';
import { createManifestSets, KEEP_SET_BYTES, KEEP_SETS, type SetRead } from './manifest-sets.js';
import {
  DEFAULT_MANIFEST_LIMITS,
  type ManifestLimits,
  type ManifestSet,
  type TreeSource,
} from './manifest-types.js';
import { createParseMemo } from './parse-memo.js';
import { type GitRepo, listRemoteRefs, type RemoteRefs } from './remote-refs.js';
import { createRepoAllowList } from './repo-url.js';

export interface GitReaderOptions {
  /** The fleet file's `repositories[].url`: nothing else is ever fetched. */
  readonly repositories: readonly string[];
  /** Where fetched commits are kept for this reader (Lambda: under `/tmp`); default the OS temp dir. */
  readonly cacheDir?: string;
  /** Per HTTP request to a Git host (default 20 s). */
  readonly timeoutMs?: number;
  /** Largest pack accepted for one commit (default 256 MiB). */
  readonly maxPackBytes?: number;
  /** Commits of the ref fetched when a host refuses to send a commit by SHA (default 50). */
  readonly fallbackDepth?: number;
  readonly limits?: Partial<ManifestLimits>;
  readonly logger?: Logger;
  /** Injected transport (tests); the bounded `fetch` client otherwise. */
  readonly http?: HttpClient;
}

export interface ReadManifestsRequest {
  readonly repo: GitRepo;
  /** The full commit SHA to read. */
  readonly sha: string;
  /** The source's `path` in the repository. */
  readonly path: string;
  /** A ref that contains the commit (the pushed ref), used only if the host refuses a fetch by SHA. */
  readonly ref?: string;
  /** Argo CD `directory.recurse` for plain directories; default true. */
  readonly recurse?: boolean;
  /**
   * The commit the push moved the ref from and every file it changed (a complete list). When the set read at
   * that commit is kept, its read looked only inside the directory, and no changed file is under it, the
   * directory is the same tree at `sha`: that set is the answer, without waiting for `sha`'s fetch.
   */
  readonly unchangedSince?: { readonly sha: string; readonly files: readonly string[] };
}

/** Reads Git for one invocation: refs and commits are fetched once per repository (and SHA), then reused. */
export interface GitReader {
  listRemoteRefs(repo: GitRepo): Promise<RemoteRefs>;
  /**
   * The commit branch or tag `ref` (a full name) names on the host now, or undefined when it names none:
   * one `ls-refs` asking for that name alone, not every ref of the repository.
   */
  remoteRef(repo: GitRepo, ref: string): Promise<string | undefined>;
  readManifests(request: ReadManifestsRequest, limits?: Partial<ManifestLimits>): Promise<ManifestSet>;
  /**
   * Starts fetching a commit reads are about to want (fan-out: while its cluster is listed), unless it is
   * `kept`. Nothing is answered: a failed fetch is not kept, and the read that follows fetches and reports.
   * A repository not allow-listed, or a SHA not full, is ignored.
   */
  prefetch(request: Omit<ReadManifestsRequest, 'path' | 'recurse'>): void;
  /** The commit is fetched, or being fetched, for this reader (and not found unreadable). */
  kept(url: string, sha: string): boolean;
  /** Removes the fetched commits from disk. */
  close(): Promise<void>;
}

export class InvalidShaError extends AppError {
  constructor() {
    super('a commit must be named by its full 40-character SHA', { code: 'git-sha' });
  }
}

const FULL_SHA = /^[0-9a-f]{40}$/i;

/** Commits and read manifests kept by a reader pool between sessions (a warm container's invocations). */
export interface GitReaderPoolOptions extends GitReaderOptions {
  /** Fetched commits kept on disk after their session (default 8); the least recently used go first. */
  readonly keepCommits?: number;
  /**
   * Read paths (manifest sets) kept in memory (default `KEEP_SETS`), least recently used first out: a
   * reconcile pass reads each app's paths again at the same commits, and 5,000 distinct paths through a
   * bound of 1,000 read every file again each pass (3.0-3.6 s of CPU against 19-49 ms).
   */
  readonly keepManifestSets?: number;
  /** Bytes of manifest files the kept sets were read from (default `KEEP_SET_BYTES`). */
  readonly keepManifestBytes?: number;
  /** Characters of manifest file text kept with their parse across commits (default `PARSE_MEMO_CHARS`; 0: none). */
  readonly keepParsedChars?: number;
}

export interface GitReaderPool {
  /** A reader for one invocation: refs are read fresh per session, commits and their files are shared. */
  session(): GitReader;
  /** Removes every fetched commit. */
  close(): Promise<void>;
}

/** One invocation's reader: nothing outlives `close()`. */
export function createGitReader(options: GitReaderOptions): GitReader {
  const pool = createGitReaderPool({ ...options, keepCommits: 0, keepManifestSets: 0, keepParsedChars: 0 });
  const session = pool.session();
  return {
    listRemoteRefs: session.listRemoteRefs,
    remoteRef: session.remoteRef,
    readManifests: session.readManifests,
    prefetch: session.prefetch,
    kept: session.kept,
    close: async () => {
      await session.close();
      await pool.close();
    },
  };
}

/**
 * Git reads for a warm container. A commit's tree never changes, so what was fetched and read at a SHA is
 * kept across invocations (bounded), and the many work items of one push (a cluster each) fetch the commit
 * once per container instead of once each. Refs change, so every session lists them again.
 */
export function createGitReaderPool(options: GitReaderPoolOptions): GitReaderPool {
  const allowList = createRepoAllowList(options.repositories);
  const keepCommits = options.keepCommits ?? 8;
  const transport = (onBodyError?: (error: UpstreamError) => void): HttpClient =>
    options.http ??
    createGitHttpClient({
      timeoutMs: options.timeoutMs ?? 20_000,
      maxResponseBytes: options.maxPackBytes ?? 256 * 1024 * 1024,
      ...(onBodyError === undefined ? {} : { onBodyError }),
    });
  const sets = createManifestSets({
    sets: options.keepManifestSets ?? KEEP_SETS,
    bytes: options.keepManifestBytes ?? KEEP_SET_BYTES,
  });
  // The pool's limits and their part of a set's key, once (most reads name no limits of their own).
  const poolLimits = { ...DEFAULT_MANIFEST_LIMITS, ...options.limits };
  const poolLimitsKey = JSON.stringify(poolLimits);
  // A file's text parsed once per container, whatever commit or path it is read at.
  const parse = options.keepParsedChars === 0 ? undefined : createParseMemo(options.keepParsedChars);
  let open = 0;
  const commits = createKeptCommits({
    cacheDir: options.cacheDir ?? tmpdir(),
    fallbackDepth: options.fallbackDepth ?? 50,
    transport,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });

  const readManifests = async (request: ReadManifestsRequest, limits?: Partial<ManifestLimits>) => {
    const key = allowList.check(request.repo.url);
    if (!FULL_SHA.test(request.sha)) throw new InvalidShaError();
    const sha = request.sha.toLowerCase();
    const merged = limits === undefined ? poolLimits : { ...poolLimits, ...limits };
    // What a set depends on besides the tree it is read in: the path, the recursion and the bounds.
    const readKey = `:${request.path}:${request.recurse ?? true}:${limits === undefined ? poolLimitsKey : JSON.stringify(merged)}`;
    const since = request.unchangedSince;
    const read: SetRead = {
      repoKey: key,
      sha,
      path: request.path,
      readKey,
      ...(since === undefined || !FULL_SHA.test(since.sha)
        ? {}
        : { unchangedSince: { sha: since.sha.toLowerCase(), files: since.files } }),
    };
    const known = sets.known(read);
    if (known !== undefined) return known;
    const collect = (tree: TreeSource) =>
      collectManifests(
        tree,
        { path: request.path, ...(request.recurse === undefined ? {} : { recurse: request.recurse }) },
        merged,
        undefined,
        parse,
      );
    const answer = commits
      .treeOf(request.repo, key, sha, request.ref)
      .then((tree) => sets.collect(read, tree, collect));
    sets.remember(read, answer);
    return answer;
  };

  const listOptions = {
    allowList,
    ...(options.http === undefined ? {} : { http: options.http }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  // The allow-list's key of a URL it allows; undefined for any other (a head start never throws).
  const allowedKey = (url: string) => (allowList.allows(url) ? allowList.check(url) : undefined);
  const prefetch = (request: Omit<ReadManifestsRequest, 'path' | 'recurse'>) => {
    const key = allowedKey(request.repo.url);
    if (key === undefined || !FULL_SHA.test(request.sha)) return;
    commits.treeOf(request.repo, key, request.sha.toLowerCase(), request.ref).catch(() => undefined);
  };
  const kept = (url: string, sha: string) => {
    const key = allowedKey(url);
    return key !== undefined && commits.has(key, sha.toLowerCase());
  };

  return {
    session() {
      open++;
      let closed = false;
      const refsByRepo = new Map<string, Promise<RemoteRefs>>();
      const refByName = new Map<string, Promise<string | undefined>>();
      return {
        async listRemoteRefs(repo) {
          const key = allowList.check(repo.url);
          let pending = refsByRepo.get(key);
          if (pending === undefined) {
            pending = listRemoteRefs(repo, listOptions);
            refsByRepo.set(key, pending);
          }
          return pending;
        },
        async remoteRef(repo, ref) {
          const key = `${allowList.check(repo.url)} ${ref}`;
          let pending = refByName.get(key);
          if (pending === undefined) {
            pending = listRemoteRefs(repo, { ...listOptions, prefix: ref }).then((listed) =>
              listed.refs.get(ref),
            );
            refByName.set(key, pending);
          }
          return pending;
        },
        readManifests,
        // Not once closed: a fetch runs within a session (eviction, between sessions, may not meet one).
        prefetch: (request) => {
          if (!closed) prefetch(request);
        },
        kept,
        async close() {
          if (closed) return;
          closed = true;
          refsByRepo.clear();
          refByName.clear();
          await commits.settled();
          open--;
          // Eviction runs only while no session is open: a fetch in one may be linking a kept commit's packs.
          if (open === 0) {
            for (const cacheKey of await commits.evict(keepCommits)) sets.dropCommit(cacheKey);
          }
        },
      };
    },
    async close() {
      sets.clear();
      await commits.close();
    },
  };
}
