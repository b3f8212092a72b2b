import { describe, expect, it } from 'vitest';
import {
  createDeploymentRequest,
  deploymentStatusRequest,
  deploymentTarget,
  deploymentTargetProblem,
} from '../../../lib/deployments/deployment-request.js';
import type { PlannedDeployment } from '../../../lib/deployments/plan.js';

const SHA = 'a'.repeat(40);
const planned: PlannedDeployment = {
  environment: 'production',
  clusters: ['prod-eu', 'prod-us'],
  production: true,
  phase: 'failure',
  description: '1/2 synced, 1 failed',
  refreshed: true,
  rank: 1,
};
const github = deploymentTarget({ url: 'https://github.com/org/gitops' });
const gitlab = deploymentTarget({ url: 'https://gitlab.example/group/sub/deploy.git', provider: 'gitlab' });

describe('deployment requests for GitHub and GitLab', () => {
  it('creates a GitHub deployment of the SHA, not auto-merged, with no required contexts', () => {
    if (github === undefined) throw new Error('no target');
    const request = createDeploymentRequest(github, { sha: SHA, ref: 'refs/heads/main' }, planned, {
      token: 'ghp_x',
    });
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.github.com/repos/org/gitops/deployments');
    expect(request.headers.Authorization).toBe('Bearer ghp_x');
    expect(JSON.parse(request.body)).toEqual({
      ref: SHA,
      environment: 'production',
      auto_merge: false,
      required_contexts: [],
      production_environment: true,
      transient_environment: false,
      description: 'gitops-sync to prod-eu, prod-us',
    });
  });

  it('posts a GitHub deployment status with the page as environment and log URL', () => {
    if (github === undefined) throw new Error('no target');
    const request = deploymentStatusRequest(github, '42', planned, { token: 'ghp_x' }, 'https://sync/ui/x');
    expect(request.url).toBe('https://api.github.com/repos/org/gitops/deployments/42/statuses');
    expect(JSON.parse(request.body)).toEqual({
      state: 'failure',
      description: '1/2 synced, 1 failed',
      environment_url: 'https://sync/ui/x',
      log_url: 'https://sync/ui/x',
    });
  });

  it('creates a GitLab deployment of a tag as running, then PUTs its final status', () => {
    if (gitlab === undefined) throw new Error('no target');
    const create = createDeploymentRequest(gitlab, { sha: SHA, ref: 'refs/tags/v1.2.0' }, planned, {
      token: 'glpat-x',
    });
    expect(create.url).toBe('https://gitlab.example/api/v4/projects/group%2Fsub%2Fdeploy/deployments');
    expect(create.headers['PRIVATE-TOKEN']).toBe('glpat-x');
    expect(JSON.parse(create.body)).toEqual({
      environment: 'production',
      sha: SHA,
      ref: 'v1.2.0',
      tag: true,
      status: 'running',
    });
    const update = deploymentStatusRequest(gitlab, '7', planned, { token: 'glpat-x' }, undefined);
    expect([update.method, update.url, JSON.parse(update.body)]).toEqual([
      'PUT',
      'https://gitlab.example/api/v4/projects/group%2Fsub%2Fdeploy/deployments/7',
      { status: 'failed' },
    ]);
  });

  it.each([
    ['Bitbucket Cloud', { url: 'https://bitbucket.org/ws/gitops' }, /not possible on bitbucket/],
    ['Gitea', { url: 'https://gitea.example/o/r', provider: 'gitea' as const }, /not possible on gitea/],
    ['a generic host', { url: 'https://git.example/o/r', provider: 'generic' as const }, /provider generic/],
  ])('has no deployments target on %s, and says why', (_name, repo, problem) => {
    expect(deploymentTarget(repo)).toBeUndefined();
    expect(deploymentTargetProblem(repo)).toMatch(problem);
  });
});
