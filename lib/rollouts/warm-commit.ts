import { errorMessage } from '../errors.js';
import type { RepositoryConfig } from '../fleet/fleet-config.js';
import { repositoryFor } from '../fleet/repositories.js';
import type { GitCredentials } from '../git/credentials.js';
import type { GitReader } from '../git/manifests.js';
import { gitRepoOf } from '../git/remote-refs.js';
import type { MatchIndex } from '../matching/match-index.js';
import { canonicalRepoKeys } from '../matching/repo-url.js';
import type { Logger } from '../ports.js';
import type { PushEvent } from '../webhook/push-event.js';
import { REFRESH_DECISIONS } from './app-refresh.js';

export interface WarmCommitDeps {
  readonly repositories: readonly RepositoryConfig[];
  /** The cluster's index as this container last listed it (none in a cold container). */
  readonly lastIndex: (cluster: string) => MatchIndex | undefined;
  /** The cluster names an Argo CD API: its preflight reads Argo CD's rendering, not Git. */
  readonly renders: (cluster: string) => boolean;
  readonly git: Pick<GitReader, 'kept' | 'prefetch'>;
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly logger: Logger;
}

/**
 * `ClusterWorkDeps.warmCommit`: the first work items of a commit in a container waited for its Git fetch,
 * which their preflight started only once the cluster was listed and matched (the p99 of push → last
 * PATCH). Here the push is matched against the cluster's last listing instead, as the work item starts:
 * when an Application it refreshes reads a source of the pushed repository from Git (as the preflight does:
 * no chart, no `ref` source), that commit's fetch starts beside the listing. A cold container has no
 * listing to go by and fetches nothing ahead (it may serve a cluster no app of the repository lives on).
 */
export function createWarmCommit(deps: WarmCommitDeps): (cluster: string, event: PushEvent) => void {
  return (cluster, event) => {
    try {
      if (event.image !== undefined || event.deleted || deps.renders(cluster)) return;
      const index = deps.lastIndex(cluster);
      if (index === undefined) return;
      const repo = gitSourceRepo(index, event, deps.repositories);
      if (repo === undefined || deps.git.kept(repo.url, event.after)) return;
      deps
        .credentials(repo)
        .then((auth) =>
          deps.git.prefetch({
            repo: gitRepoOf(repo, auth),
            sha: event.after,
            ref: event.ref,
          }),
        )
        .catch(() => undefined);
    } catch (error) {
      // Only a head start: the preflight reads (and reports) as it always does.
      deps.logger.debug('commit not fetched ahead', { cluster, error: errorMessage(error) });
    }
  };
}

/** The fleet repository a refreshed Application of the last listing reads from Git at the push. */
function gitSourceRepo(
  index: MatchIndex,
  event: PushEvent,
  repositories: readonly RepositoryConfig[],
): RepositoryConfig | undefined {
  const pushed = canonicalRepoKeys([...event.repo.urls, event.repo.webUrl]);
  for (const match of index.match(event, event.changedFiles).matches) {
    if (match.object.kind !== 'Application' || !REFRESH_DECISIONS.has(match.decision)) continue;
    for (const source of match.object.value.sources) {
      if (source.repoKey === undefined || !pushed.has(source.repoKey)) continue;
      if (source.chart !== undefined || source.ref !== undefined) continue;
      const repo = repositoryFor(source.repoKey, repositories);
      if (repo !== undefined) return repo;
    }
  }
  return undefined;
}
