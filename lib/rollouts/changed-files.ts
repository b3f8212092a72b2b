import type { RepositoryConfig } from '../fleet/fleet-config.js';
import { repositoryFor } from '../fleet/repositories.js';
import type { CompareRequest, CompareResult } from '../git/compare-model.js';
import { compareTarget } from '../git/compare-target.js';
import type { GitCredentials } from '../git/credentials.js';
import { apiToken } from '../git/credentials.js';
import { canonicalRepoKeys } from '../matching/repo-url.js';
import type { Logger } from '../ports.js';
import { type ChangedFiles, type PushEvent, ZERO_SHA } from '../webhook/push-event.js';

export interface ChangedFilesDeps {
  readonly repositories: readonly RepositoryConfig[];
  readonly credentials: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>;
  readonly compare: (request: CompareRequest) => Promise<CompareResult>;
  readonly logger: Logger;
}

/**
 * A push's changed files: the payload's list when it is complete; otherwise the provider's compare API for
 * `before...after` when the repository is in the fleet file; otherwise unknown (fan-out then fails open).
 */
export function changedFilesResolver(deps: ChangedFilesDeps) {
  return async (event: PushEvent): Promise<ChangedFiles> => {
    if (event.changedFiles.known || event.before === ZERO_SHA || event.before === event.after)
      return event.changedFiles;
    const keys = canonicalRepoKeys([...event.repo.urls, event.repo.webUrl]);
    const repo = [...keys].map((k) => repositoryFor(k, deps.repositories)).find((r) => r !== undefined);
    const target = repo === undefined ? undefined : compareTarget(repo);
    if (repo === undefined || target === undefined) return event.changedFiles;
    try {
      const token = apiToken(await deps.credentials(repo));
      const result = await deps.compare({
        ...target,
        ...(event.repo.projectId === undefined ? {} : { projectId: event.repo.projectId }),
        before: event.before,
        after: event.after,
        ...(token === undefined ? {} : { token }),
      });
      if (result.known) return result;
      deps.logger.info('compare api could not list the files; failing open', { detail: result.detail });
    } catch (error) {
      deps.logger.warn('repository credentials unavailable for compare', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return event.changedFiles;
  };
}
