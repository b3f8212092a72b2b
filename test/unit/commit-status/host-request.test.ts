import { describe, expect, it } from 'vitest';
import { statusRequest } from '../../../lib/commit-status/host-request.js';
import type { PlannedStatus } from '../../../lib/commit-status/plan.js';
import { statusTarget } from '../../../lib/commit-status/status-target.js';

const SHA = 'b'.repeat(40);
const status: PlannedStatus = {
  context: 'gitops-sync',
  phase: 'running',
  description: '1/2 synced, 1 syncing',
  targetUrl: 'https://sync.example/ui/rollouts/bbb',
};

describe('where and how a commit status is posted', () => {
  it.each([
    {
      url: 'https://github.com/org/gitops.git',
      target: { host: 'github', apiBaseUrl: 'https://api.github.com', repository: 'org/gitops' },
    },
    {
      url: 'https://ghe.example/org/gitops',
      provider: 'github',
      target: { host: 'github', apiBaseUrl: 'https://ghe.example/api/v3', repository: 'org/gitops' },
    },
    {
      url: 'https://gitlab.com/group/sub/project',
      target: { host: 'gitlab', apiBaseUrl: 'https://gitlab.com/api/v4', repository: 'group/sub/project' },
    },
    {
      url: 'https://bitbucket.org/ws/repo',
      target: { host: 'bitbucket', apiBaseUrl: 'https://api.bitbucket.org', repository: 'ws/repo' },
    },
    {
      url: 'https://git.example/org/repo',
      apiUrl: 'http://127.0.0.1:9/github/',
      provider: 'github',
      target: { host: 'github', apiBaseUrl: 'http://127.0.0.1:9/github', repository: 'org/repo' },
    },
  ] as const)('$url goes to $target.host', ({ target, ...repo }) => {
    expect(statusTarget(repo)).toEqual(target);
  });

  it('takes the host name of the repository when the clone URL names no owner', () => {
    const repo = {
      url: 'http://127.0.0.1:9/platform.git',
      provider: 'github' as const,
      apiUrl: 'http://127.0.0.1:9/github',
    };
    expect(statusTarget(repo, 'example/platform')?.repository).toBe('example/platform');
    expect(statusTarget(repo, '../../etc')).toBeUndefined();
  });

  it.each([
    { name: 'an unknown host', repo: { url: 'https://git.example/org/repo' } },
    {
      name: 'a generic provider',
      repo: { url: 'https://github.com/org/repo', provider: 'generic' as const },
    },
    { name: 'a path without an owner', repo: { url: 'https://github.com/repo' } },
  ])('has no target for $name', ({ repo }) => {
    expect(statusTarget(repo)).toBeUndefined();
  });

  it('posts GitHub a commit status with the token as a bearer header and pending for running', () => {
    const request = statusRequest(
      { host: 'github', apiBaseUrl: 'https://api.github.com', repository: 'org/gitops' },
      SHA,
      status,
      { token: 'ghp_secret' },
      'https://github.com/org/gitops',
    );
    expect(request.url).toBe(`https://api.github.com/repos/org/gitops/statuses/${SHA}`);
    expect(request.headers.Authorization).toBe('Bearer ghp_secret');
    expect(JSON.parse(request.body)).toEqual({
      state: 'pending',
      context: 'gitops-sync',
      description: '1/2 synced, 1 syncing',
      target_url: 'https://sync.example/ui/rollouts/bbb',
    });
  });

  it('posts GitLab running under the project path, encoded, with PRIVATE-TOKEN', () => {
    const request = statusRequest(
      { host: 'gitlab', apiBaseUrl: 'https://gitlab.com/api/v4', repository: 'group/sub/project' },
      SHA,
      { ...status, phase: 'failure' },
      { username: 'bot', password: 'glpat-secret' },
      '',
    );
    expect(request.url).toBe(`https://gitlab.com/api/v4/projects/group%2Fsub%2Fproject/statuses/${SHA}`);
    expect(request.headers['PRIVATE-TOKEN']).toBe('glpat-secret');
    expect(JSON.parse(request.body)).toMatchObject({ state: 'failed', name: 'gitops-sync' });
  });

  it('posts Bitbucket a build status, with a URL even without a rollout page', () => {
    const { targetUrl: _none, ...withoutLink } = status;
    const request = statusRequest(
      { host: 'bitbucket', apiBaseUrl: 'https://api.bitbucket.org', repository: 'ws/repo' },
      SHA,
      { ...withoutLink, phase: 'success' },
      { token: 'bb-secret' },
      'https://bitbucket.org/ws/repo',
    );
    expect(request.url).toBe(
      `https://api.bitbucket.org/2.0/repositories/ws/repo/commit/${SHA}/statuses/build`,
    );
    expect(JSON.parse(request.body)).toEqual({
      key: 'gitops-sync',
      name: 'gitops-sync',
      state: 'SUCCESSFUL',
      description: '1/2 synced, 1 syncing',
      url: 'https://bitbucket.org/ws/repo',
    });
  });
});
