import { canonicalRepoKey } from '../matching/repo-url.js';
import type { RepositoryConfig } from './fleet-config.js';

/** The fleet file's entry for a repository, found by canonical key (an app's SSH URL finds its https entry). */
export function repositoryFor(
  repoKey: string | undefined,
  repositories: readonly RepositoryConfig[],
): RepositoryConfig | undefined {
  if (repoKey === undefined) return undefined;
  return repositories.find((r) => canonicalRepoKey(r.url) === repoKey);
}
