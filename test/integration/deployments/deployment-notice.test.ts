import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentNotice } from '../../../lib/deployments/deployment-notice.js';
import type { HostRequest } from '../../../lib/deployments/deployment-request.js';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import { callHost, DEFAULT_HOST_BUDGET } from '../../../lib/http/host-call.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import type { RolloutReader } from '../../../lib/rollouts/ports/rollout-reader.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { dynamoDeployments } from '../../../lib/store/deployments.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { type DeploymentsDouble, startDeploymentsApi } from '../../helpers/deployments-api.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const GITHUB_TOKEN = 'ghp_deploy-token';
const GITLAB_TOKEN = 'glpat-deploy-token';
const clusters = [
  { name: 'hub' },
  { name: 'staging' },
  { name: 'prod-eu', labels: { environment: 'production', tier: 'prod' } },
];

describe('deployments as a rollout moves, through dynalite and the GitHub and GitLab doubles', () => {
  let table: TestTable;
  let api: DeploymentsDouble;
  let writer: ReturnType<typeof dynamoRolloutWriter>;
  let ledger: ReturnType<typeof dynamoDeployments>;
  let notice: (sha: string) => Promise<void>;
  let makeNotice: (rollouts?: Pick<RolloutReader, 'get'>) => (sha: string) => Promise<void>;
  /** Runs before each host call is sent (a racing caller's notice, a move of the rollout). */
  let beforeCall: ((request: HostRequest) => Promise<void>) | undefined;
  const logLines: LogLine[] = [];
  const failures: string[] = [];
  let n = 0;

  beforeAll(async () => {
    table = await startTestTable();
    api = await startDeploymentsApi({ gitlabToken: GITLAB_TOKEN });
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86400);
    ledger = dynamoDeployments(ref, 86400);
    const repositories: RepositoryConfig[] = [
      { url: 'https://github.com/org/gitops', token: GITHUB_TOKEN, apiUrl: api.githubApi, deployments: true },
      {
        url: 'https://gitlab.example/group/deploy',
        provider: 'gitlab',
        token: GITLAB_TOKEN,
        apiUrl: api.gitlabApi,
        deployments: true,
      },
      { url: 'https://github.com/org/quiet', token: GITHUB_TOKEN, apiUrl: api.githubApi, commitStatus: true },
    ];
    const reader = dynamoRolloutReader(ref);
    makeNotice = (rollouts = reader) =>
      deploymentNotice({
        rollouts,
        repositories,
        clusters,
        credentials: async (repo) => (repo.token === undefined ? undefined : { token: repo.token }),
        ledger,
        call: async (request) => {
          const hook = beforeCall;
          beforeCall = undefined;
          await hook?.(request);
          return callHost(request, { budget: { ...DEFAULT_HOST_BUDGET, sleep: async () => undefined } });
        },
        pageUrl: (sha) => `https://sync.example/ui/rollouts/${sha}`,
        logger: createMemoryLogger(logLines),
        metrics: { count: (name, _value, dimensions) => failures.push(`${name}:${dimensions?.host}`) },
      });
    notice = makeNotice();
  });
  afterAll(async () => {
    await api.close();
    await table.close();
  });

  async function rollout(repo: string, repoUrl: string, ref = 'refs/heads/main') {
    n += 1;
    const meta = {
      sha: n.toString(16).padStart(40, 'e'),
      repo,
      ref,
      trigger: 'webhook' as const,
      receivedAt: new Date().toISOString(),
    };
    await writer.start({ ...meta, repoUrl });
    /** `destination/name` → state; every app sits on the hub and deploys to its destination. */
    const record = async (states: Record<string, AppState>) => {
      for (const [key, state] of Object.entries(states)) {
        const [destination = '', name = ''] = key.split('/');
        await writer.recordApp(meta, {
          cluster: 'hub',
          namespace: 'argocd',
          name: `${destination}-${name}`,
          kind: 'Application',
          state,
          destination,
        });
      }
      await writer.syncSummary(meta.sha);
    };
    const move = async (states: Record<string, AppState>) => {
      await record(states);
      await notice(meta.sha);
    };
    return { sha: meta.sha, record, move };
  }

  const of = (sha: string) => api.deployments.filter((d) => d.sha === sha);
  const byEnvironment = (sha: string) => Object.fromEntries(of(sha).map((d) => [d.environment, d.states]));

  it('creates one GitHub deployment per environment as its apps are refreshed and moves each to its end', async () => {
    const { sha, move } = await rollout('org/gitops', 'https://github.com/org/gitops');
    await move({ 'staging/web': 'matched', 'prod-eu/web': 'matched' });
    expect(of(sha)).toEqual([]);
    await move({ 'staging/web': 'refreshed', 'staging/api': 'refreshed' });
    await move({ 'staging/web': 'syncing', 'prod-eu/web': 'refreshed' });
    await move({ 'staging/web': 'synced', 'staging/api': 'synced', 'prod-eu/web': 'degraded' });
    await notice(sha);
    expect(byEnvironment(sha)).toEqual({
      staging: ['in_progress', 'success'],
      production: ['in_progress', 'failure'],
    });
    const production = of(sha).find((d) => d.environment === 'production');
    expect(production?.body).toMatchObject({
      ref: sha,
      auto_merge: false,
      required_contexts: [],
      production_environment: true,
      transient_environment: false,
    });
    expect(of(sha).find((d) => d.environment === 'staging')?.body.production_environment).toBe(false);
    expect(production?.statuses.at(-1)).toEqual({
      state: 'failure',
      description: '0/1 synced, 1 degraded',
      environment_url: `https://sync.example/ui/rollouts/${sha}`,
      log_url: `https://sync.example/ui/rollouts/${sha}`,
    });
    expect(production?.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    expect(await ledger.entries(sha)).toEqual([
      { kind: 'deployment', target: 'production', state: 'failure' },
      { kind: 'deployment', target: 'staging', state: 'success' },
    ]);
  });

  it('creates one deployment when two notices race, and posts each state once', async () => {
    const { sha, record } = await rollout('org/gitops', 'https://github.com/org/gitops');
    await record({ 'staging/web': 'refreshed', 'hub/web': 'refreshed' });
    await Promise.all([notice(sha), notice(sha), notice(sha)]);
    await record({ 'staging/web': 'synced', 'hub/web': 'synced' });
    await Promise.all([notice(sha), notice(sha)]);
    expect(
      of(sha)
        .map((d) => d.environment)
        .sort(),
    ).toEqual(['hub', 'staging']);
    expect(byEnvironment(sha)).toEqual({
      hub: ['in_progress', 'success'],
      staging: ['in_progress', 'success'],
    });
  });

  it("posts the racing caller's later view, left to the caller that holds the create claim", async () => {
    const { sha, record } = await rollout('org/gitops', 'https://github.com/org/gitops');
    await record({ 'staging/web': 'refreshed' });
    beforeCall = async () => {
      // While this caller creates, the app ends and another poller's notice finds the creation claimed.
      await record({ 'staging/web': 'synced' });
      await notice(sha);
    };
    await notice(sha);
    expect(byEnvironment(sha)).toEqual({ staging: ['success'] });
  });

  it('moves a GitLab deployment of a tag running → success, and cancels one superseded by a later commit', async () => {
    const { sha, move } = await rollout(
      'group/deploy',
      'https://gitlab.example/group/deploy.git',
      'refs/tags/v2',
    );
    await move({ 'staging/web': 'refreshed', 'prod-eu/web': 'syncing' });
    await move({ 'staging/web': 'syncing' });
    await move({ 'staging/web': 'synced', 'prod-eu/web': 'superseded' });
    expect(byEnvironment(sha)).toEqual({
      staging: ['running', 'success'],
      production: ['running', 'canceled'],
    });
    expect(of(sha)[0]).toMatchObject({ repository: 'group/deploy', ref: 'v2', authorization: GITLAB_TOKEN });
    expect(of(sha)[0]?.body.tag).toBe(true);
    expect(logLines.filter((l) => l.message === 'deployment status not posted')).toEqual([]);
  });

  it('marks a GitHub deployment inactive when all its apps were superseded by a later commit', async () => {
    const { sha, move } = await rollout('org/gitops', 'https://github.com/org/gitops');
    await move({ 'staging/web': 'refreshed', 'staging/api': 'refreshed' });
    await move({ 'staging/web': 'superseded', 'staging/api': 'superseded' });
    expect(byEnvironment(sha)).toEqual({ staging: ['in_progress', 'inactive'] });
  });

  it('creates nothing for a repository without deployments, nor for apps superseded before any refresh', async () => {
    const quiet = await rollout('org/quiet', 'https://github.com/org/quiet');
    await quiet.move({ 'staging/web': 'synced' });
    expect(of(quiet.sha)).toEqual([]);
    const late = await rollout('org/gitops', 'https://github.com/org/gitops');
    await late.move({ 'staging/web': 'superseded' });
    expect(of(late.sha)).toEqual([]);
  });

  it('retries a 5xx answer with backoff and creates the deployment once', async () => {
    const { sha, move } = await rollout('org/gitops', 'https://github.com/org/gitops');
    api.answer('POST /github/repos/org/gitops/deployments', [
      { status: 502 },
      { status: 429, headers: { 'Retry-After': '1' } },
    ]);
    const before = failures.length;
    await move({ 'hub/web': 'synced' });
    expect(byEnvironment(sha)).toEqual({ hub: ['success'] });
    expect(failures.length).toBe(before);
  });

  it('never throws while the host is down, keeps its error on the rollout, and catches up once it is back', async () => {
    const { sha, move } = await rollout('group/deploy', 'https://gitlab.example/group/deploy');
    const path = 'POST /gitlab/api/v4/projects/group%2Fdeploy/deployments';
    api.answer(path, [{ status: 503 }, { status: 503 }, { status: 503 }]);
    await expect(move({ 'hub/web': 'refreshed' })).resolves.toBeUndefined();
    expect(of(sha)).toEqual([]);
    expect(await ledger.entries(sha)).toMatchObject([
      { kind: 'deployment', target: 'hub', state: 'not-created', error: 'HTTP 503' },
    ]);
    expect(failures).toContain('DeploymentFailed:gitlab');
    expect(JSON.stringify(logLines)).not.toContain(GITLAB_TOKEN);

    await move({ 'hub/web': 'syncing' });
    const id = await ledger.deploymentId(sha, 'hub');
    expect(id).toBeDefined();
    const put = `PUT /gitlab/api/v4/projects/group%2Fdeploy/deployments/${id}`;
    api.answer(put, [{ status: 500 }, { status: 500 }, { status: 500 }]);
    await move({ 'hub/web': 'synced' });
    expect(await ledger.entries(sha)).toMatchObject([{ target: 'hub', state: 'running', error: 'HTTP 500' }]);
    await notice(sha);
    expect(byEnvironment(sha)).toEqual({ hub: ['running', 'success'] });
    expect(await ledger.entries(sha)).toEqual([{ kind: 'deployment', target: 'hub', state: 'success' }]);
  });

  it("leaves a failed GitLab deployment as it is while a retry runs, and moves it to the retry's end", async () => {
    const { sha, move } = await rollout('group/deploy', 'https://gitlab.example/group/deploy');
    await move({ 'staging/web': 'refreshed' });
    await move({ 'staging/web': 'failed' });
    const stored = await dynamoRolloutReader(
      createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint }),
    ).get(sha);
    if (stored === undefined) throw new Error('no rollout');
    const retried = (state: AppState): Rollout => ({
      ...stored,
      actions: [{ action: 'retry', by: 'token', at: new Date().toISOString() }],
      apps: stored.apps.map((a) => ({ ...a, state })),
    });
    let view = retried('syncing');
    const retryNotice = makeNotice({ get: async () => view });
    const sent = api.requests.length;
    await retryNotice(sha);
    expect(api.requests.length).toBe(sent);
    view = retried('synced');
    await retryNotice(sha);
    expect(byEnvironment(sha)).toEqual({ staging: ['running', 'failed', 'success'] });
    expect(await ledger.entries(sha)).toEqual([{ kind: 'deployment', target: 'staging', state: 'success' }]);
  });
});
