import { describe, expect, it } from 'vitest';
import { feedbackCredentials } from '../../../lib/check-run/app-credentials.js';
import type { InstallationTokens } from '../../../lib/check-run/github-app-token.js';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import type { LogFields, Logger } from '../../../lib/ports.js';

const GITHUB: RepositoryConfig = { url: 'https://github.com/org/gitops' };
const GITLAB: RepositoryConfig = { url: 'https://gitlab.com/org/gitops' };

function recordingLogger(lines: { message: string; fields?: LogFields }[]): Logger {
  const line = (message: string, fields?: LogFields) => {
    lines.push({ message, ...(fields === undefined ? {} : { fields }) });
  };
  const logger: Logger = { debug: line, info: line, warn: line, error: line, child: () => logger };
  return logger;
}

describe('the credentials statuses and deployments post with', () => {
  const repositoryToken = async (repo: RepositoryConfig) => ({ token: `pat-for-${repo.url}` });

  it('are the GitHub App installation token on a GitHub repository, for that repository', async () => {
    const asked: string[] = [];
    const app: InstallationTokens = {
      installationToken: async (repo) => {
        asked.push(`${repo.apiBaseUrl} ${repo.repository}`);
        return 'ghs_installation';
      },
    };
    const credentials = feedbackCredentials(app, repositoryToken, recordingLogger([]));
    expect(await credentials(GITHUB)).toEqual({ token: 'ghs_installation' });
    expect(asked).toEqual(['https://api.github.com org/gitops']);
    // Another host keeps its own token.
    expect(await credentials(GITLAB)).toEqual({ token: 'pat-for-https://gitlab.com/org/gitops' });
  });

  it("are the repository's token without an App, or when the App cannot mint one (with a warning)", async () => {
    expect(await feedbackCredentials(undefined, repositoryToken, recordingLogger([]))(GITHUB)).toEqual({
      token: 'pat-for-https://github.com/org/gitops',
    });
    const lines: { message: string; fields?: LogFields }[] = [];
    const refusing: InstallationTokens = {
      installationToken: async () => {
        throw new Error('installation lookup: HTTP 404');
      },
    };
    const credentials = feedbackCredentials(refusing, repositoryToken, recordingLogger(lines));
    expect(await credentials(GITHUB)).toEqual({ token: 'pat-for-https://github.com/org/gitops' });
    expect(lines).toEqual([
      {
        message: 'GitHub App token not available: the repository token posts instead',
        fields: { repo: 'org/gitops', error: 'installation lookup: HTTP 404' },
      },
    ]);
  });
});
