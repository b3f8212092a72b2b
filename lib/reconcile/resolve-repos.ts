import type { ApplicationSource } from '../argocd/application.js';
import { createLimiter } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import { repositoryFor } from '../fleet/repositories.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import type { RemoteRefs } from '../git/remote-refs.js';
import { gitRepoOf } from '../git/remote-refs.js';
import { resolveRevision } from '../git/resolve-revision.js';
import { constraintMatches } from '../matching/semver.js';
import type { SourceResolution } from './behind.js';

export interface RepositoriesRead {
  /** Canonical keys of the repositories listed this pass. */
  readonly read: readonly string[];
  readonly failed: readonly { readonly repo: string; readonly error: string }[];
  /** The commit a source's targetRevision names now (memoised per repository and revision). */
  resolve(source: ApplicationSource): SourceResolution;
  /** The fleet entry for a source's repository and its credentials, for reading manifests. */
  repository(source: ApplicationSource): RepositoryConfig | undefined;
}

export interface RepositoryDeps {
  readonly fleet: FleetConfig;
  readonly git: Pick<GitReader, 'listRemoteRefs'>;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly concurrency: number;
}

/** Whether a source names a Git revision at all (Helm charts and OCI artifacts do not). */
export function isGitSource(source: ApplicationSource): boolean {
  return source.chart === undefined && source.repoKey !== undefined;
}

/** Repositories listed as a pass meets their sources: `load` lists those not listed yet. */
export interface RepositoriesReader extends RepositoriesRead {
  /** Lists (`ls-refs`) each fleet repository these sources use that was not asked for before. */
  load(sources: Iterable<ApplicationSource>): Promise<void>;
}

/**
 * One `ls-refs` per distinct fleet repository the sources use, with bounded concurrency; a repository
 * that fails is reported and its sources resolve to `unknown`. Repositories not in the fleet file are
 * never contacted.
 */
export async function readRepositories(
  sources: Iterable<ApplicationSource>,
  deps: RepositoryDeps,
): Promise<RepositoriesRead> {
  const reader = createRepositoriesReader(deps);
  await reader.load(sources);
  return reader;
}

/**
 * `readRepositories` for a pass that streams its apps: each repository is listed once, when the first page
 * naming it is loaded (concurrent loads share the listing), so no pass-wide list of sources is needed.
 * A fleet repository's source resolves only after it was loaded; before, it is `unknown`.
 */
export function createRepositoriesReader(deps: RepositoryDeps): RepositoriesReader {
  const wanted = new Map<string, RepositoryConfig>();
  const listings = new Map<string, Promise<void>>();
  const remotes = new Map<string, RemoteRefs>();
  const errors = new Map<string, string>();
  const memo = new Map<string, SourceResolution>();
  const limit = createLimiter(deps.concurrency);
  const list = async (key: string, repo: RepositoryConfig): Promise<void> => {
    try {
      const refs = await limit(async () => {
        const auth = await deps.credentials(repo);
        return deps.git.listRemoteRefs(gitRepoOf(repo, auth));
      });
      remotes.set(key, refs);
    } catch (error) {
      errors.set(key, errorMessage(error));
    }
  };
  return {
    get read() {
      return [...remotes.keys()].sort();
    },
    get failed() {
      return [...errors]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([repo, error]) => ({ repo, error }));
    },
    async load(sources) {
      const pending: Promise<void>[] = [];
      for (const source of sources) {
        if (!isGitSource(source) || source.repoKey === undefined) continue;
        let listing = listings.get(source.repoKey);
        if (listing === undefined) {
          const repo = repositoryFor(source.repoKey, deps.fleet.repositories);
          if (repo === undefined) continue;
          wanted.set(source.repoKey, repo);
          listing = list(source.repoKey, repo);
          listings.set(source.repoKey, listing);
        }
        pending.push(listing);
      }
      await Promise.all(pending);
    },
    repository: (source) =>
      isGitSource(source) ? repositoryFor(source.repoKey, deps.fleet.repositories) : undefined,
    resolve(source) {
      if (!isGitSource(source)) return { kind: 'not-git' };
      const key = source.repoKey as string;
      const repo = wanted.get(key);
      if (repo === undefined) {
        const listed = repositoryFor(key, deps.fleet.repositories) !== undefined;
        return listed ? { kind: 'unknown', reason: 'repository not listed yet' } : { kind: 'unlisted' };
      }
      if (!remotes.has(key) && !errors.has(key))
        return { kind: 'unknown', reason: 'repository not listed yet' };
      const memoKey = `${key}\n${source.targetRevision}`;
      let resolution = memo.get(memoKey);
      if (resolution === undefined) {
        resolution = resolveOne(repo, key, remotes.get(key), errors.get(key), source.targetRevision);
        memo.set(memoKey, resolution);
      }
      return resolution;
    },
  };
}

function resolveOne(
  repo: RepositoryConfig,
  repoKey: string,
  remote: RemoteRefs | undefined,
  error: string | undefined,
  targetRevision: string,
): SourceResolution {
  if (remote === undefined) return { kind: 'unknown', reason: error ?? 'repository not listed' };
  const resolved = resolveRevision(remote, targetRevision, constraintMatches);
  if (!resolved.found) return { kind: 'unknown', reason: resolved.reason };
  return {
    kind: 'resolved',
    repo,
    repoKey,
    resolved,
    ...(remote.head === undefined ? {} : { head: remote.head }),
  };
}
