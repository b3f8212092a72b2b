import { describe, expect, it } from 'vitest';
import { compareCommits } from '../../../lib/git/compare.js';
import { compareTarget } from '../../../lib/git/compare-target.js';

describe('compareTarget', () => {
  it.each([
    [
      'github.com uses the public API',
      { url: 'https://github.com/org/gitops.git' },
      { provider: 'github', apiBaseUrl: 'https://api.github.com', repository: 'org/gitops' },
    ],
    [
      'a GitHub Enterprise host uses /api/v3',
      { url: 'https://ghe.example.com/org/gitops', provider: 'github' as const },
      { provider: 'github', apiBaseUrl: 'https://ghe.example.com/api/v3', repository: 'org/gitops' },
    ],
    [
      'a host named gitlab uses /api/v4 and keeps subgroups',
      { url: 'https://gitlab.example.com/platform/deploy/gitops/' },
      {
        provider: 'gitlab',
        apiBaseUrl: 'https://gitlab.example.com/api/v4',
        repository: 'platform/deploy/gitops',
      },
    ],
    [
      'an apiUrl from the fleet file wins',
      {
        url: 'http://127.0.0.1:9/org/gitops.git',
        provider: 'gitlab' as const,
        apiUrl: 'http://127.0.0.1:7/api/v4',
      },
      { provider: 'gitlab', apiBaseUrl: 'http://127.0.0.1:7/api/v4', repository: 'org/gitops' },
    ],
    [
      'bitbucket.org uses api.bitbucket.org',
      { url: 'https://bitbucket.org/acme/platform.git' },
      { provider: 'bitbucket', apiBaseUrl: 'https://api.bitbucket.org', repository: 'acme/platform' },
    ],
    [
      'a /scm/ path is Bitbucket Server, its REST API under the same context path',
      { url: 'https://git.example.com/bitbucket/scm/PLAT/deploy.git' },
      {
        provider: 'bitbucket-server',
        apiBaseUrl: 'https://git.example.com/bitbucket',
        repository: 'PLAT/deploy',
      },
    ],
    [
      'dev.azure.com: the organisation is the collection, project/repo the repository',
      { url: 'https://dev.azure.com/org/project/_git/repo' },
      { provider: 'azure-devops', apiBaseUrl: 'https://dev.azure.com/org', repository: 'project/repo' },
    ],
    [
      'a legacy visualstudio.com URL with DefaultCollection',
      { url: 'https://org.visualstudio.com/DefaultCollection/project/_git/repo' },
      {
        provider: 'azure-devops',
        apiBaseUrl: 'https://org.visualstudio.com/DefaultCollection',
        repository: 'project/repo',
      },
    ],
    [
      'an Azure repository named like its project',
      { url: 'https://dev.azure.com/org/_git/repo' },
      { provider: 'azure-devops', apiBaseUrl: 'https://dev.azure.com/org', repository: 'repo/repo' },
    ],
    [
      'Azure DevOps Server with a collection path and an apiUrl for tests',
      {
        url: 'https://tfs.example.com/tfs/Main/Platform/_git/deploy',
        provider: 'azure-devops' as const,
        apiUrl: 'http://127.0.0.1:7/azure',
      },
      { provider: 'azure-devops', apiBaseUrl: 'http://127.0.0.1:7/azure', repository: 'Platform/deploy' },
    ],
  ])('%s', (_name, source, expected) => {
    expect(compareTarget(source)).toEqual(expected);
  });

  it.each([
    ['a generic provider', { url: 'https://git.example.com/org/gitops', provider: 'generic' as const }],
    [
      'Gitea (its commits list their files)',
      { url: 'https://gitea.example.com/org/gitops', provider: 'gitea' as const },
    ],
    ['an Azure URL without _git', { url: 'https://dev.azure.com/org/project' }],
    ['an unknown host without a provider', { url: 'https://git.example.com/org/gitops' }],
    ['a URL without an owner', { url: 'https://github.com/gitops' }],
    ['text that is no URL', { url: 'nope' }],
  ])('has no compare API for %s', (_name, source) => {
    expect(compareTarget(source)).toBeUndefined();
  });
});

describe('compareCommits input checks', () => {
  const noFetch = (() => {
    throw new Error('no request expected');
  }) as unknown as typeof fetch;

  it.each([
    ['an abbreviated before SHA', 'abc1234', 'b'.repeat(40)],
    ['a deleted ref (zero after)', 'a'.repeat(40), '0'.repeat(40)],
  ])('answers unknown for %s without asking the provider', async (_name, before, after) => {
    const result = await compareCommits(
      { provider: 'github', apiBaseUrl: 'https://api.github.com', repository: 'o/r', before, after },
      { fetch: noFetch },
    );
    expect(result).toMatchObject({ known: false, reason: 'compare-failed' });
  });
});
