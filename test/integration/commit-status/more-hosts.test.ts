import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commitStatusNotice } from '../../../lib/commit-status/commit-status-notice.js';
import { postStatus } from '../../../lib/commit-status/post-status.js';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import type { GitCredentials } from '../../../lib/git/credentials.js';
import type { HostCallBudget } from '../../../lib/http/host-call.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { dynamoPostedStatuses } from '../../../lib/store/commit-statuses.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { type StatusHostsDouble, startStatusHostsApi } from '../../helpers/status-hosts-api.js';

const BBS_TOKEN = 'BBDC-http-access-token';
const BBS_APP_PASSWORD = 'bbs-app-password';
const AZURE_PAT = 'azure-pat-secret';
const GITEA_TOKEN = 'gitea-token-secret';
const SECRETS = [BBS_TOKEN, BBS_APP_PASSWORD, AZURE_PAT, GITEA_TOKEN];
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('commit statuses on Bitbucket Server, Azure DevOps and Gitea, through dynalite and their doubles', () => {
  let table: TestTable;
  let api: StatusHostsDouble;
  let elsewhere: StatusHostsDouble;
  let writer: ReturnType<typeof dynamoRolloutWriter>;
  let reader: ReturnType<typeof dynamoRolloutReader>;
  let posted: ReturnType<typeof dynamoPostedStatuses>;
  let notice: (sha: string) => Promise<void>;
  const logLines: LogLine[] = [];
  const counted: { name: string; dimensions: unknown }[] = [];
  const waits: number[] = [];
  let n = 0;

  const hosts = {
    'bitbucket-server': {
      url: 'https://bitbucket.example/scm/PLAT/gitops.git',
      repo: 'PLAT/gitops',
      credentials: { token: BBS_TOKEN } as GitCredentials,
      path: (sha: string) => `/bbs/rest/build-status/1.0/commits/${sha}`,
      authorization: `Bearer ${BBS_TOKEN}`,
      states: ['INPROGRESS', 'SUCCESSFUL', 'FAILED'],
      body: (state: string, description: string, url: string) => ({
        state,
        key: 'gitops-sync',
        name: 'gitops-sync',
        url,
        description,
      }),
    },
    'bitbucket-server with a username': {
      url: 'https://bitbucket.example/scm/PLAT/apps.git',
      repo: 'PLAT/apps',
      credentials: { username: 'ci-bot', password: BBS_APP_PASSWORD } as GitCredentials,
      path: (sha: string) => `/bbs/rest/build-status/1.0/commits/${sha}`,
      authorization: basic('ci-bot', BBS_APP_PASSWORD),
      states: ['INPROGRESS', 'SUCCESSFUL', 'FAILED'],
      body: (state: string, description: string, url: string) => ({
        state,
        key: 'gitops-sync',
        name: 'gitops-sync',
        url,
        description,
      }),
    },
    'azure-devops': {
      url: 'https://dev.azure.com/org/Platform%20Team/_git/gitops',
      repo: 'Platform Team/gitops',
      credentials: { token: AZURE_PAT } as GitCredentials,
      path: (sha: string) =>
        `/azure/org/Platform%20Team/_apis/git/repositories/gitops/commits/${sha}/statuses?api-version=7.1`,
      authorization: basic('', AZURE_PAT),
      states: ['pending', 'succeeded', 'failed'],
      body: (state: string, description: string, url: string) => ({
        state,
        description,
        targetUrl: url,
        context: { name: 'gitops-sync', genre: 'gitops' },
      }),
    },
    gitea: {
      url: 'https://gitea.example/infra/gitops.git',
      repo: 'infra/gitops',
      credentials: { token: GITEA_TOKEN } as GitCredentials,
      path: (sha: string) => `/gitea/api/v1/repos/infra/gitops/statuses/${sha}`,
      authorization: `token ${GITEA_TOKEN}`,
      states: ['pending', 'success', 'failure'],
      body: (state: string, description: string, url: string) => ({
        state,
        context: 'gitops-sync',
        description,
        target_url: url,
      }),
    },
  } as const;
  type HostCase = keyof typeof hosts;

  beforeAll(async () => {
    table = await startTestTable();
    api = await startStatusHostsApi();
    elsewhere = await startStatusHostsApi();
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86400);
    reader = dynamoRolloutReader(ref);
    posted = dynamoPostedStatuses(ref, 86400);
    const repositories: RepositoryConfig[] = [
      { url: hosts['bitbucket-server'].url, apiUrl: api.bitbucketServerBase, commitStatus: true },
      {
        url: hosts['bitbucket-server with a username'].url,
        apiUrl: api.bitbucketServerBase,
        commitStatus: true,
      },
      { url: hosts['azure-devops'].url, apiUrl: api.azureCollection, commitStatus: true },
      { url: hosts.gitea.url, provider: 'gitea', apiUrl: api.giteaApi, commitStatus: true },
    ];
    const budget: HostCallBudget = {
      maxAttempts: 3,
      maxWaitMs: 5_000,
      backoffMs: 10,
      timeoutMs: 2_000,
      sleep: async (ms) => {
        waits.push(ms);
      },
    };
    notice = commitStatusNotice({
      rollouts: reader,
      repositories,
      credentials: async (repo) => Object.values(hosts).find((h) => h.url === repo.url)?.credentials,
      posted,
      post: (request) => postStatus(request, { budget }),
      pageUrl: (sha) => `https://sync.example/ui/rollouts/${sha}`,
      logger: createMemoryLogger(logLines),
      metrics: { count: (name, _value, dimensions) => counted.push({ name, dimensions }) },
    });
  });
  afterEach(() => {
    waits.length = 0;
    counted.length = 0;
  });
  afterAll(async () => {
    await api.close();
    await elsewhere.close();
    await table.close();
  });

  async function rollout(host: HostCase) {
    n += 1;
    const meta = {
      sha: n.toString(16).padStart(40, 'e'),
      repo: hosts[host].repo,
      ref: 'refs/heads/main',
      trigger: 'webhook' as const,
      receivedAt: new Date().toISOString(),
    };
    await writer.start({ ...meta, repoUrl: hosts[host].url });
    const move = async (states: Record<string, AppState>) => {
      for (const [key, state] of Object.entries(states)) {
        const [cluster = '', name = ''] = key.split('/');
        await writer.recordApp(meta, { cluster, namespace: 'argocd', name, kind: 'Application', state });
      }
      await writer.syncSummary(meta.sha);
      await notice(meta.sha);
    };
    return { sha: meta.sha, move };
  }

  const requestsOf = (path: string) => api.requests.filter((r) => r.url === path);
  const cases = Object.keys(hosts) as HostCase[];

  it.each(cases)(
    '%s: pending while the rollout runs, then success, each post as the API wants it',
    async (host) => {
      const { path, authorization, states, body } = hosts[host];
      const { sha, move } = await rollout(host);
      await move({ 'hub/web': 'refreshed', 'spoke/web': 'refreshed' });
      await move({ 'hub/web': 'synced' });
      await move({ 'spoke/web': 'synced' });
      const page = `https://sync.example/ui/rollouts/${sha}`;
      const sent = requestsOf(path(sha));
      expect(sent.map((r) => JSON.parse(r.body))).toEqual([
        body(states[0], '0/2 synced, 2 refreshed', page),
        body(states[0], '1/2 synced, 1 refreshed', page),
        body(states[1], '2/2 synced', page),
      ]);
      expect(sent.every((r) => r.method === 'POST' && r.headers.authorization === authorization)).toBe(true);
      expect(api.statuses.filter((s) => s.sha === sha).map((s) => s.state)).toEqual([
        states[0],
        states[0],
        states[1],
      ]);
    },
  );

  it.each(cases)('%s: failure when an app fails', async (host) => {
    const { sha, move } = await rollout(host);
    await move({ 'hub/web': 'synced', 'hub/api': 'failed' });
    expect(api.statuses.filter((s) => s.sha === sha).map((s) => [s.state, s.description])).toEqual([
      [hosts[host].states[2], '1/2 synced, 1 failed'],
    ]);
  });

  it.each(['gitea', 'azure-devops', 'bitbucket-server'] as const)(
    '%s: a 429 waits as Retry-After says, then posts',
    async (host) => {
      const { sha, move } = await rollout(host);
      api.answer(hosts[host].path(sha), [{ status: 429, headers: { 'Retry-After': '2' } }]);
      await move({ 'hub/web': 'synced' });
      expect(waits).toEqual([2000]);
      expect(requestsOf(hosts[host].path(sha))).toHaveLength(2);
      expect(api.statuses.filter((s) => s.sha === sha).map((s) => s.state)).toEqual([hosts[host].states[1]]);
      expect(await posted.lastError(sha, 'gitops-sync')).toBeUndefined();
    },
  );

  it('a 401 is the last error on the rollout, counted, never with the token, and the rollout goes on', async () => {
    const { sha, move } = await rollout('bitbucket-server');
    api.answer(hosts['bitbucket-server'].path(sha), { status: 401, body: { message: `bad ${BBS_TOKEN}` } });
    await expect(move({ 'hub/web': 'synced' })).resolves.toBeUndefined();
    expect(requestsOf(hosts['bitbucket-server'].path(sha))).toHaveLength(1);
    expect(await posted.lastError(sha, 'gitops-sync')).toMatchObject({ error: 'HTTP 401' });
    expect(counted).toEqual([{ name: 'CommitStatusFailed', dimensions: { host: 'bitbucket-server' } }]);
    expect((await reader.get(sha))?.status).toBe('succeeded');
    // The rollout's `feedback` (GET /rollouts/{sha}) says the same.
    expect(await reader.feedback?.(sha)).toEqual([
      {
        kind: 'commit-status',
        target: 'gitops-sync',
        state: 'not posted',
        error: 'HTTP 401',
        errorAt: expect.any(String),
      },
    ]);
    const logged = JSON.stringify(logLines);
    for (const secret of SECRETS) expect(logged).not.toContain(secret);

    // Once the token is fixed, the next notice posts and the error is gone.
    await notice(sha);
    expect(api.statuses.filter((s) => s.sha === sha).map((s) => s.state)).toEqual(['SUCCESSFUL']);
    expect(await posted.lastError(sha, 'gitops-sync')).toBeUndefined();
    expect(await reader.feedback?.(sha)).toEqual([
      { kind: 'commit-status', target: 'gitops-sync', state: 'success' },
    ]);
  });

  it.each(cases)(
    '%s: a redirect is not followed, so the credential never reaches the other host',
    async (host) => {
      const { sha, move } = await rollout(host);
      const path = hosts[host].path(sha);
      api.answer(path, {
        status: 307,
        headers: { Location: `${elsewhere.url}${path.replace(/^\/[^/]+/, '/bbs')}` },
      });
      await move({ 'hub/web': 'synced' });
      expect(elsewhere.requests).toEqual([]);
      expect(requestsOf(path)).toHaveLength(1);
      expect((await posted.lastError(sha, 'gitops-sync'))?.error).toMatch(/^HTTP 307: redirect refused/);
    },
  );
});
