import type { ApplicationSource } from '../argocd/application.js';
import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { FleetConfig, RepositoryConfig } from '../fleet/fleet-config.js';
import { repositoryFor } from '../fleet/repositories.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import type { RemoteRefs } from '../git/remote-refs.js';
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

/**
 * One `ls-refs` per distinct fleet repository the sources use, with bounded concurrency; a repository
 * that fails is reported and its sources resolve to `unknown`. Repositories not in the fleet file are
 * never contacted.
 */
export async function readRepositories(
  sources: Iterable<ApplicationSource>,
  deps: RepositoryDeps,
): Promise<RepositoriesRead> {
  const wanted = new Map<string, RepositoryConfig>();
  for (const source of sources) {
    if (!isGitSource(source)) continue;
    const repo = repositoryFor(source.repoKey, deps.fleet.repositories);
    if (repo !== undefined && source.repoKey !== undefined) wanted.set(source.repoKey, repo);
  }
  const keys = [...wanted.keys()].sort();
  const listed = await mapWithConcurrency(keys, deps.concurrency, async (key) => {
    const repo = wanted.get(key) as RepositoryConfig;
    const auth = await deps.credentials(repo);
    return deps.git.listRemoteRefs({
      url: repo.url,
      ...(auth === undefined ? {} : { auth }),
      ...(repo.provider === undefined ? {} : { provider: repo.provider }),
    });
  });
  const remotes = new Map<string, RemoteRefs>();
  const errors = new Map<string, string>();
  listed.forEach((result, i) => {
    const key = keys[i] ?? '';
    if (result.status === 'fulfilled') remotes.set(key, result.value);
    else errors.set(key, errorMessage(result.reason));
  });
  const memo = new Map<string, SourceResolution>();
  return {
    read: [...remotes.keys()],
    failed: [...errors].map(([repo, error]) => ({ repo, error })),
    repository: (source) =>
      isGitSource(source) ? repositoryFor(source.repoKey, deps.fleet.repositories) : undefined,
    resolve(source) {
      if (!isGitSource(source)) return { kind: 'not-git' };
      const key = source.repoKey as string;
      const repo = wanted.get(key);
      if (repo === undefined) return { kind: 'unlisted' };
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
