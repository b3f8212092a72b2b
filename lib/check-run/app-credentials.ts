import { statusTarget } from '../commit-status/status-target.js';
import { errorMessage } from '../errors.js';
import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { Logger } from '../ports.js';
import type { InstallationTokens } from './github-app-token.js';

/**
 * The credentials commit statuses and deployments post with: on a GitHub repository, the fleet's GitHub App
 * installation token when `githubApp` is set (SPEC; organisations that allow no personal tokens), else the
 * repository's own token. An App that cannot mint one for this repository (not installed there, a key
 * GitHub refuses) falls back to the repository's token, with a warning, rather than posting nothing.
 */
export function feedbackCredentials(
  app: InstallationTokens | undefined,
  repositoryToken: (repo: RepositoryConfig) => Promise<GitCredentials | undefined>,
  logger: Logger,
): (repo: RepositoryConfig) => Promise<GitCredentials | undefined> {
  if (app === undefined) return repositoryToken;
  return async (repo) => {
    const target = statusTarget(repo);
    if (target?.host !== 'github') return repositoryToken(repo);
    try {
      return { token: await app.installationToken(target) };
    } catch (error) {
      logger.warn('GitHub App token not available: the repository token posts instead', {
        repo: target.repository,
        error: errorMessage(error),
      });
      return repositoryToken(repo);
    }
  };
}
