import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { githubCheckRunApi } from '../../../lib/check-run/check-run-api.js';
import { checkRunNotice } from '../../../lib/check-run/check-run-notice.js';
import { githubAppTokens } from '../../../lib/check-run/github-app-token.js';
import type { GitHubAppConfig, RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { dynamoCheckRuns } from '../../../lib/store/check-runs.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { type GitHubChecksDouble, startGitHubChecksApi } from '../../helpers/github-checks-api.js';

// Made at test time: no key is ever committed. GitHub hands out PKCS#1; the App reads it as is.
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const APP_ID = 424242;
const INSTALLATION = 987;
const NO_WAIT = { maxAttempts: 3, maxWaitMs: 5_000, backoffMs: 1, timeoutMs: 2_000, sleep: async () => {} };

describe('check runs as a rollout moves, through dynalite and a local GitHub App double', () => {
  let table: TestTable;
  let ref: TableRef;
  let github: GitHubChecksDouble;
  let writer: ReturnType<typeof dynamoRolloutWriter>;
  const logLines: LogLine[] = [];
  const counted: { name: string; dimensions: unknown }[] = [];
  let n = 0;

  const repositories = (apiUrl: string): RepositoryConfig[] => [
    { url: 'https://ghe.example/org/gitops', provider: 'github', apiUrl, checkRun: true },
    { url: 'https://ghe.example/org/quiet', provider: 'github', apiUrl },
  ];
  /** One poller: its own token source and client, the shared table (as two Lambda instances have). */
  const poller = (
    app: GitHubAppConfig = { appId: APP_ID, privateKey: PEM, installationId: INSTALLATION },
    apiUrl?: string,
  ) =>
    checkRunNotice({
      rollouts: dynamoRolloutReader(ref),
      repositories: repositories(apiUrl ?? github.apiUrl),
      store: dynamoCheckRuns(ref, 86_400),
      api: githubCheckRunApi({
        tokens: githubAppTokens({ app, secrets: noSecrets, budget: NO_WAIT }),
        budget: NO_WAIT,
      }),
      pageUrl: (sha) => `https://sync.example/ui/rollouts/${sha}`,
      logger: createMemoryLogger(logLines),
      metrics: { count: (name, _value, dimensions) => counted.push({ name, dimensions }) },
      waitForId: { attempts: 100, pollMs: 20 },
    });
  const noSecrets = {
    getSecretString: async () => {
      throw new Error('no secrets here');
    },
  };

  beforeAll(async () => {
    table = await startTestTable();
    github = await startGitHubChecksApi({
      appId: APP_ID,
      publicKey,
      installationId: INSTALLATION,
      installedOn: ['org/gitops'],
    });
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86_400);
  });
  afterAll(async () => {
    await github.close();
    await table.close();
  });
  beforeEach(() => {
    github.tokenTtlSeconds = 3600;
    counted.length = 0;
  });

  async function rollout(repo = 'org/gitops') {
    n += 1;
    const meta = {
      sha: n.toString(16).padStart(40, 'c'),
      repo,
      ref: 'refs/heads/main',
      trigger: 'webhook' as const,
      receivedAt: new Date().toISOString(),
    };
    await writer.start({ ...meta, repoUrl: `https://ghe.example/${repo}` });
    const move = async (states: Record<string, AppState>) => {
      for (const [key, state] of Object.entries(states)) {
        const [cluster = '', name = ''] = key.split('/');
        await writer.recordApp(meta, { cluster, namespace: 'argocd', name, kind: 'Application', state });
      }
      await writer.syncSummary(meta.sha);
    };
    return { sha: meta.sha, move };
  }
  const runsOf = (sha: string) => github.checkRuns.filter((r) => r.headSha === sha);
  const calls = (method: string, pattern: RegExp) =>
    github.requests.filter((r) => r.method === method && pattern.test(r.url)).length;

  it('creates one check run, then updates it in place only when what it shows changed, and completes it', async () => {
    const notice = poller();
    const { sha, move } = await rollout();
    const tokensBefore = github.tokens.length;
    await move({ 'hub/web': 'refreshed', 'spoke/web': 'refreshed' });
    await notice(sha);
    await notice(sha); // nothing changed: no call
    await move({ 'hub/web': 'synced' });
    await notice(sha);
    await move({ 'spoke/web': 'failed' });
    await notice(sha);

    const [run, ...others] = runsOf(sha);
    expect(others).toEqual([]);
    expect(run?.bodies.map((b) => [b.method, b.body.status, b.body.conclusion])).toEqual([
      ['POST', 'in_progress', undefined],
      ['PATCH', 'in_progress', undefined],
      ['PATCH', 'completed', 'failure'],
    ]);
    expect(run?.bodies[0]?.body).toMatchObject({
      name: 'gitops-sync',
      head_sha: sha,
      details_url: `https://sync.example/ui/rollouts/${sha}`,
      output: { title: '0/2 synced, 2 refreshed' },
    });
    expect(run?.state).toMatchObject({
      output: {
        title: '1/2 synced, 1 failed',
        text: expect.stringContaining('**spoke** argocd/web: failed'),
      },
      actions: [{ label: 'Retry failed', identifier: 'retry' }],
    });
    // One installation token for all of it, from JWTs the App's public key verified.
    expect(github.tokens.length - tokensBefore).toBe(1);
    expect(github.jwts.length).toBeGreaterThan(0);
    expect(github.jwts.every((j) => j.verified && j.alg === 'RS256' && j.iss === APP_ID)).toBe(true);
    expect(github.jwts.every((j) => j.exp - j.iat <= 600)).toBe(true);
    expect(await dynamoCheckRuns(ref, 86_400).read(sha)).toMatchObject({
      kind: 'check-run',
      target: 'gitops-sync',
      state: 'failure',
      id: run?.id,
    });
    expect(JSON.stringify(logLines)).not.toMatch(/ghs_double|BEGIN RSA/);
  });

  it('creates a single check run when notices race, within one poller and across two', async () => {
    const { sha, move } = await rollout();
    await move({ 'hub/web': 'syncing' });
    const one = poller();
    const other = poller();
    await Promise.all([one(sha), other(sha), one(sha), other(sha)]);
    expect(runsOf(sha)).toHaveLength(1);
    expect(runsOf(sha)[0]?.bodies.map((b) => b.method)).toEqual(['POST']);

    await move({ 'hub/web': 'synced' });
    await Promise.all([one(sha), other(sha)]);
    expect(runsOf(sha)).toHaveLength(1);
    expect(runsOf(sha)[0]?.bodies.map((b) => [b.method, b.body.conclusion])).toEqual([
      ['POST', undefined],
      ['PATCH', 'success'],
    ]);
  });

  it('looks the installation up when the fleet names none, and keeps a token only until shortly before it expires', async () => {
    github.tokenTtlSeconds = 120; // inside the renewal margin: every call takes a fresh one
    const notice = poller({ appId: APP_ID, privateKey: PEM });
    const { sha, move } = await rollout();
    const lookups = calls('GET', /\/repos\/org\/gitops\/installation$/);
    const tokens = github.tokens.length;
    await move({ 'hub/web': 'syncing' });
    await notice(sha);
    await move({ 'hub/web': 'synced' });
    await notice(sha);
    expect(calls('GET', /\/repos\/org\/gitops\/installation$/) - lookups).toBe(1);
    expect(github.tokens.length - tokens).toBe(2);
    expect(runsOf(sha)[0]?.state).toMatchObject({ conclusion: 'success' });
  });

  it('renews a token GitHub refuses (revoked, expired early) once, then records the error', async () => {
    const notice = poller();
    const { sha, move } = await rollout();
    await move({ 'hub/web': 'syncing' });
    await notice(sha);
    github.revokeTokens();
    const tokens = github.tokens.length;
    await move({ 'hub/web': 'synced', 'hub/api': 'syncing' });
    await notice(sha);
    expect(github.tokens.length - tokens).toBe(1);
    expect(runsOf(sha)[0]?.bodies).toHaveLength(2);

    const [run] = runsOf(sha);
    const path = `/api/v3/repos/org/gitops/check-runs/${run?.id}`;
    github.answer(path, [{ status: 401 }, { status: 401 }]);
    await move({ 'hub/api': 'synced' });
    await notice(sha);
    expect(github.tokens.length - tokens).toBe(2); // one renewal for this update, no more
    expect(runsOf(sha)[0]?.bodies).toHaveLength(2);
    expect(await dynamoCheckRuns(ref, 86_400).read(sha)).toMatchObject({
      error: 'HTTP 401',
      state: 'in_progress',
    });
    expect(counted).toEqual([{ name: 'CheckRunFailed', dimensions: { step: 'update' } }]);
    // The claim was released: the next notice posts the same view, and the error clears.
    await notice(sha);
    expect(runsOf(sha)[0]?.state).toMatchObject({ conclusion: 'success' });
    const after = await dynamoCheckRuns(ref, 86_400).read(sha);
    expect(after?.error).toBeUndefined();
    expect(after?.state).toBe('success');
  });

  it('retries 5xx, 429 and the secondary rate limit (403 with Retry-After), for the token too', async () => {
    const notice = poller();
    const { sha, move } = await rollout();
    await move({ 'hub/web': 'synced' });
    const tokens = github.tokens.length;
    github.answer(`/api/v3/app/installations/${INSTALLATION}/access_tokens`, [
      { status: 503 },
      { status: 429, headers: { 'Retry-After': '0' } },
    ]);
    github.answer('/api/v3/repos/org/gitops/check-runs', [
      { status: 502 },
      { status: 429, headers: { 'Retry-After': '0' } },
    ]);
    await notice(sha);
    expect(runsOf(sha)).toHaveLength(1);
    expect(github.tokens.length - tokens).toBe(1);
    await move({ 'hub/api': 'failed' });
    const [run] = runsOf(sha);
    github.answer(`/api/v3/repos/org/gitops/check-runs/${run?.id}`, [
      {
        status: 403,
        headers: { 'Retry-After': '0' },
        body: { message: 'You have exceeded a secondary rate limit' },
      },
    ]);
    await notice(sha);
    expect(runsOf(sha)[0]?.state).toMatchObject({ conclusion: 'failure' });
    expect(counted).toEqual([]);
  });

  it('never throws when GitHub is down or refuses: the error is kept and counted', async () => {
    const { sha, move } = await rollout();
    await move({ 'hub/web': 'synced' });
    await expect(poller(undefined, 'http://127.0.0.1:9/api/v3')(sha)).resolves.toBeUndefined();
    expect(await dynamoCheckRuns(ref, 86_400).read(sha)).toMatchObject({
      error: 'no installation token: GitHub unreachable',
    });
    github.answer('/api/v3/repos/org/gitops/check-runs', [{ status: 500 }, { status: 500 }, { status: 500 }]);
    await expect(poller()(sha)).resolves.toBeUndefined();
    expect(runsOf(sha)).toEqual([]);
    expect(await dynamoCheckRuns(ref, 86_400).read(sha)).toMatchObject({ error: 'HTTP 500' });
    expect(counted.map((c) => c.name)).toEqual(['CheckRunFailed', 'CheckRunFailed']);
    // A key that is not the App's: GitHub refuses the JWT, and that is said without the key.
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    await poller({ appId: APP_ID, privateKey: stranger, installationId: INSTALLATION })(sha);
    expect(await dynamoCheckRuns(ref, 86_400).read(sha)).toMatchObject({
      error: 'no installation token: HTTP 401',
    });
    expect(github.jwts.at(-1)?.verified).toBe(false);
    // Back up: the next notice creates it.
    await poller()(sha);
    expect(runsOf(sha)).toHaveLength(1);
    expect(JSON.stringify(logLines)).not.toMatch(/ghs_double|PRIVATE KEY/);
  });

  it('keeps a completed check run completed when the rollout runs again (a retry), updating its output, then its conclusion', async () => {
    n += 1;
    const sha = n.toString(16).padStart(40, 'c');
    const app = (state: AppState) => ({
      cluster: 'hub',
      namespace: 'argocd',
      name: 'web',
      kind: 'Application' as const,
      state,
    });
    let view: Rollout = {
      sha,
      repo: 'org/gitops',
      repoUrl: 'https://ghe.example/org/gitops',
      ref: 'refs/heads/main',
      refs: ['refs/heads/main'],
      trigger: 'webhook',
      receivedAt: new Date().toISOString(),
      status: 'failed',
      counts: {},
      decisions: {},
      apps: [app('failed')],
    };
    const notice = checkRunNotice({
      rollouts: { get: async () => view },
      repositories: repositories(github.apiUrl),
      store: dynamoCheckRuns(ref, 86_400),
      api: githubCheckRunApi({
        tokens: githubAppTokens({
          app: { appId: APP_ID, privateKey: PEM, installationId: INSTALLATION },
          secrets: noSecrets,
          budget: NO_WAIT,
        }),
        budget: NO_WAIT,
      }),
      pageUrl: () => undefined,
      logger: createMemoryLogger(logLines),
    });
    await notice(sha);
    const retry = { action: 'retry' as const, by: 'github:octocat', at: new Date().toISOString() };
    view = { ...view, status: 'in-progress', apps: [app('syncing')], actions: [retry] };
    await notice(sha);
    view = { ...view, status: 'succeeded', apps: [app('synced')] };
    await notice(sha);
    const [run, ...others] = runsOf(sha);
    expect(others).toEqual([]);
    expect(run?.bodies.map((b) => [b.method, b.body.status, b.body.conclusion])).toEqual([
      ['POST', 'completed', 'failure'],
      ['PATCH', undefined, undefined],
      ['PATCH', 'completed', 'success'],
    ]);
    expect(run?.bodies[1]?.body).toMatchObject({
      output: { title: 'running again · 0/1 synced, 1 syncing' },
      actions: [],
    });
    expect(await dynamoCheckRuns(ref, 86_400).read(sha)).toMatchObject({ state: 'success' });
  });

  it('posts nothing for a repository without checkRun', async () => {
    const { sha, move } = await rollout('org/quiet');
    await move({ 'hub/web': 'synced' });
    await poller()(sha);
    expect(runsOf(sha)).toEqual([]);
  });
});
