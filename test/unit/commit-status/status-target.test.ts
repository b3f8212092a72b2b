import { describe, expect, it } from 'vitest';
import { fitDescription, statusRequest } from '../../../lib/commit-status/host-request.js';
import type { PlannedStatus } from '../../../lib/commit-status/plan.js';
import { statusTarget, statusTargetProblem } from '../../../lib/commit-status/status-target.js';

const SHA = 'a'.repeat(40);
const status: PlannedStatus = {
  context: 'gitops-sync',
  phase: 'running',
  description: '1/2 synced, 1 syncing',
  targetUrl: 'https://sync.example/ui/rollouts/aaa',
};
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Bitbucket Server, Azure DevOps and Gitea status targets', () => {
  it.each([
    {
      url: 'https://bitbucket.example/scm/PLAT/gitops.git',
      target: {
        host: 'bitbucket-server',
        apiBaseUrl: 'https://bitbucket.example',
        repository: 'PLAT/gitops',
      },
    },
    {
      url: 'https://git.example/bitbucket/scm/PLAT/gitops.git',
      target: {
        host: 'bitbucket-server',
        apiBaseUrl: 'https://git.example/bitbucket',
        repository: 'PLAT/gitops',
      },
    },
    {
      url: 'https://dev.azure.com/org/Platform%20Team/_git/gitops',
      target: {
        host: 'azure-devops',
        apiBaseUrl: 'https://dev.azure.com/org',
        repository: 'Platform Team/gitops',
      },
    },
    {
      url: 'https://org.visualstudio.com/DefaultCollection/proj/_git/gitops',
      target: {
        host: 'azure-devops',
        apiBaseUrl: 'https://org.visualstudio.com/DefaultCollection',
        repository: 'proj/gitops',
      },
    },
    {
      url: 'https://tfs.example/tfs/Main/proj/_git/gitops',
      provider: 'azure-devops',
      target: { host: 'azure-devops', apiBaseUrl: 'https://tfs.example/tfs/Main', repository: 'proj/gitops' },
    },
    {
      url: 'https://gitea.example/infra/gitops.git',
      provider: 'gitea',
      target: { host: 'gitea', apiBaseUrl: 'https://gitea.example/api/v1', repository: 'infra/gitops' },
    },
    {
      url: 'https://code.example/forgejo/infra/gitops',
      provider: 'gitea',
      target: {
        host: 'gitea',
        apiBaseUrl: 'https://code.example/forgejo/api/v1',
        repository: 'infra/gitops',
      },
    },
    {
      url: 'https://gitea.example/infra/gitops',
      provider: 'gitea',
      apiUrl: 'http://127.0.0.1:9/gitea/api/v1/',
      target: { host: 'gitea', apiBaseUrl: 'http://127.0.0.1:9/gitea/api/v1', repository: 'infra/gitops' },
    },
  ] as const)('$url goes to $target.host at $target.apiBaseUrl', ({ target, ...repo }) => {
    expect(statusTarget(repo)).toEqual(target);
    expect(statusTargetProblem(repo)).toBeUndefined();
  });

  it.each([
    {
      repo: { url: 'https://github.com/org/repo', provider: 'generic' as const },
      problem: /not possible with provider generic/,
    },
    { repo: { url: 'https://git.example/org/repo' }, problem: /cannot tell the Git host from git.example/ },
    {
      repo: { url: 'https://tfs.example/org/repo', provider: 'azure-devops' as const },
      problem: /_git/,
    },
    {
      repo: { url: 'https://bitbucket.example/', provider: 'bitbucket-server' as const },
      problem: /clone URL/,
    },
  ])('says why there is no target for $repo.url', ({ repo, problem }) => {
    expect(statusTarget(repo)).toBeUndefined();
    expect(statusTargetProblem(repo)).toMatch(problem);
  });

  it("takes the rollout's repository name when a Gitea clone URL names no owner (the local Git server)", () => {
    const repo = { url: 'http://127.0.0.1:9/gitops.git', provider: 'gitea' as const };
    expect(statusTarget(repo)).toBeUndefined();
    expect(statusTarget(repo, 'infra/gitops')).toEqual({
      host: 'gitea',
      apiBaseUrl: 'http://127.0.0.1:9/api/v1',
      repository: 'infra/gitops',
    });
    expect(statusTargetProblem(repo)).toBeUndefined();
  });
});

describe('the requests of Bitbucket Server, Azure DevOps and Gitea', () => {
  const bbs = { host: 'bitbucket-server', apiBaseUrl: 'https://bb.example/ctx', repository: 'P/r' } as const;
  const azure = {
    host: 'azure-devops',
    apiBaseUrl: 'https://dev.azure.com/org',
    repository: 'My Proj/r',
  } as const;
  const gitea = { host: 'gitea', apiBaseUrl: 'https://gitea.example/api/v1', repository: 'o/r' } as const;

  it('posts Bitbucket Server a commit build status, the page link or else the repository as its URL', () => {
    const { targetUrl: _none, ...withoutLink } = status;
    const request = statusRequest(
      bbs,
      SHA,
      withoutLink,
      { token: 'bbs' },
      'https://bb.example/projects/P/repos/r',
    );
    expect(request.url).toBe(`https://bb.example/ctx/rest/build-status/1.0/commits/${SHA}`);
    expect(request.headers.Authorization).toBe('Bearer bbs');
    expect(JSON.parse(request.body)).toEqual({
      state: 'INPROGRESS',
      key: 'gitops-sync',
      name: 'gitops-sync',
      url: 'https://bb.example/projects/P/repos/r',
      description: '1/2 synced, 1 syncing',
    });
  });

  it.each([
    { credentials: { token: 't' }, authorization: 'Bearer t' },
    { credentials: { token: 't', username: 'bot' }, authorization: basic('bot', 't') },
    { credentials: { username: 'bot', password: 'app' }, authorization: basic('bot', 'app') },
  ])('authenticates to Bitbucket Server with $authorization', ({ credentials, authorization }) => {
    expect(statusRequest(bbs, SHA, status, credentials, '').headers.Authorization).toBe(authorization);
  });

  it('authenticates to Bitbucket Cloud with basic auth when the secret names a user (an API token)', () => {
    const cloud = { host: 'bitbucket', apiBaseUrl: 'https://api.bitbucket.org', repository: 'ws/r' } as const;
    expect(
      statusRequest(cloud, SHA, status, { token: 't', username: 'me@example.com' }, '').headers,
    ).toMatchObject({
      Authorization: basic('me@example.com', 't'),
    });
    expect(statusRequest(cloud, SHA, status, { token: 't' }, '').headers.Authorization).toBe('Bearer t');
  });

  it('posts Azure DevOps a status under the encoded project, a PAT as basic auth with an empty user', () => {
    const request = statusRequest(azure, SHA, { ...status, phase: 'success' }, { token: 'pat' }, '');
    expect(request.url).toBe(
      `https://dev.azure.com/org/My%20Proj/_apis/git/repositories/r/commits/${SHA}/statuses?api-version=7.1`,
    );
    expect(request.headers.Authorization).toBe(basic('', 'pat'));
    expect(JSON.parse(request.body)).toEqual({
      state: 'succeeded',
      description: '1/2 synced, 1 syncing',
      targetUrl: 'https://sync.example/ui/rollouts/aaa',
      context: { name: 'gitops-sync', genre: 'gitops' },
    });
  });

  it('posts Gitea a status with `token` auth (basic for a username and password), failure as failure', () => {
    const request = statusRequest(gitea, SHA, { ...status, phase: 'failure' }, { token: 'gt' }, '');
    expect(request.url).toBe(`https://gitea.example/api/v1/repos/o/r/statuses/${SHA}`);
    expect(request.headers.Authorization).toBe('token gt');
    expect(JSON.parse(request.body)).toEqual({
      state: 'failure',
      context: 'gitops-sync',
      description: '1/2 synced, 1 syncing',
      target_url: 'https://sync.example/ui/rollouts/aaa',
    });
    const withUser = statusRequest(gitea, SHA, status, { username: 'u', password: 'p' }, '');
    expect(withUser.headers.Authorization).toBe(basic('u', 'p'));
  });

  it('cuts a description to the host limit on a code point boundary', () => {
    const long = `${'x'.repeat(138)}🚀🚀 and more`;
    expect([...fitDescription('github', long)]).toHaveLength(140);
    expect(fitDescription('github', long)).toBe(`${'x'.repeat(138)}🚀…`);
    expect(fitDescription('gitea', long)).toBe(long);
    expect([...fitDescription('bitbucket-server', 'y'.repeat(300))]).toHaveLength(255);
  });
});
