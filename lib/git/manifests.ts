import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpClient } from 'isomorphic-git';
import { AppError, type UpstreamError } from '../errors.js';
import type { Logger } from '../ports.js';
import { fetchCommit } from './commit-fetch.js';
import { gitAuthCallbacks } from './credentials.js';
import { toGitError } from './git-errors.js';
import { gitTreeSource } from './git-tree.js';
import { createGitHttpClient } from './http-client.js';
import { collectManifests } from './manifest-collect.js';
import { DEFAULT_MANIFEST_LIMITS, type ManifestLimits, type ManifestSet } from './manifest-types.js';
import { type GitRepo, listRemoteRefs, type RemoteRefs } from './remote-refs.js';
import { createRepoAllowList, fetchableRepoUrl } from './repo-url.js';

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
}

/** Reads Git for one invocation: refs and commits are fetched once per repository (and SHA), then reused. */
export interface GitReader {
  listRemoteRefs(repo: GitRepo): Promise<RemoteRefs>;
  readManifests(request: ReadManifestsRequest, limits?: Partial<ManifestLimits>): Promise<ManifestSet>;
  /** Removes the fetched commits from disk. */
  close(): Promise<void>;
}

export class InvalidShaError extends AppError {
  constructor() {
    super('a commit must be named by its full 40-character SHA', { code: 'git-sha' });
  }
}

const FULL_SHA = /^[0-9a-f]{40}$/i;

export function createGitReader(options: GitReaderOptions): GitReader {
  const allowList = createRepoAllowList(options.repositories);
  const transport = (onBodyError?: (error: UpstreamError) => void): HttpClient =>
    options.http ??
    createGitHttpClient({
      timeoutMs: options.timeoutMs ?? 20_000,
      maxResponseBytes: options.maxPackBytes ?? 256 * 1024 * 1024,
      ...(onBodyError === undefined ? {} : { onBodyError }),
    });
  const isoCache = {};
  const refsByRepo = new Map<string, Promise<RemoteRefs>>();
  const commits = new Map<string, Promise<string>>();
  let workDir: Promise<string> | undefined;

  const fetched = (repo: GitRepo, key: string, sha: string, ref: string | undefined): Promise<string> => {
    const cacheKey = `${key}@${sha}`;
    let pending = commits.get(cacheKey);
    if (pending === undefined) {
      const base = options.cacheDir ?? tmpdir();
      workDir ??= mkdir(base, { recursive: true }).then(() => mkdtemp(join(base, 'git-reader-')));
      const index = commits.size;
      pending = workDir.then(async (dir) => {
        const gitdir = join(dir, String(index));
        let bodyError: UpstreamError | undefined;
        try {
          const { via } = await fetchCommit({
            gitdir,
            url: fetchableRepoUrl(repo.url),
            sha,
            ...(ref === undefined ? {} : { ref }),
            fallbackDepth: options.fallbackDepth ?? 50,
            http: transport((error) => {
              bodyError ??= error;
            }),
            auth: gitAuthCallbacks(repo.auth, repo.provider),
            cache: isoCache,
          });
          if (bodyError !== undefined) throw bodyError;
          options.logger?.debug('git commit fetched', { repo: key, sha, via });
          return gitdir;
        } catch (error) {
          throw toGitError(bodyError ?? error, key, 'fetching a commit of');
        }
      });
      commits.set(cacheKey, pending);
    }
    return pending;
  };

  return {
    async listRemoteRefs(repo) {
      const key = allowList.check(repo.url);
      let pending = refsByRepo.get(key);
      if (pending === undefined) {
        pending = listRemoteRefs(repo, {
          allowList,
          ...(options.http === undefined ? {} : { http: options.http }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        });
        refsByRepo.set(key, pending);
      }
      return pending;
    },
    async readManifests(request, limits) {
      const key = allowList.check(request.repo.url);
      if (!FULL_SHA.test(request.sha)) throw new InvalidShaError();
      const sha = request.sha.toLowerCase();
      const gitdir = await fetched(request.repo, key, sha, request.ref);
      const source = gitTreeSource({ gitdir, oid: sha, cache: isoCache });
      return collectManifests(
        source,
        { path: request.path, ...(request.recurse === undefined ? {} : { recurse: request.recurse }) },
        { ...DEFAULT_MANIFEST_LIMITS, ...options.limits, ...limits },
      );
    },
    async close() {
      const dir = await workDir?.catch(() => undefined);
      await Promise.allSettled(commits.values());
      // Forget everything, so a reader used after close fetches again instead of reading a removed dir.
      workDir = undefined;
      commits.clear();
      refsByRepo.clear();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}
