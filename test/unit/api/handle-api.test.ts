import { describe, expect, it } from 'vitest';
import { type ApiDeps, handleApi } from '../../../lib/api/handle-api.js';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import { parseAllowList } from '../../../lib/ui-auth/allow-list.js';
import { memoryLoginStates } from '../../../lib/ui-auth/login-states.js';
import { cookieKeys } from '../../../lib/ui-auth/sealed-cookie.js';
import type { UiAccess } from '../../../lib/ui-auth/ui-access.js';

const SHA = 'abcdef0123456789abcdef0123456789abcdef01';
/** Shares its first seven characters with SHA: `abcdef0` is ambiguous, `abcdef01` is not. */
const OTHER = 'abcdef0999999999999999999999999999999999';
const rollout: Rollout = {
  sha: SHA,
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-11-30T10:00:00.000Z',
  status: 'succeeded',
  counts: { synced: 1 },
  decisions: { refreshed: 1 },
  apps: [
    {
      cluster: 'hub',
      namespace: 'argocd',
      name: 'web',
      kind: 'Application',
      state: 'synced',
      refreshedAt: '2026-11-30T10:00:01.000Z',
      finishedAt: '2026-11-30T10:00:31.000Z',
    },
  ],
};

function deps(overrides: Partial<ApiDeps> = {}): ApiDeps {
  return {
    rollouts: {
      get: async (sha) => (sha === SHA ? rollout : undefined),
      summary: async (sha) => (sha === SHA ? rollout : undefined),
      listApps: async () => [],
      decisions: async () => [
        {
          cluster: 'hub',
          namespace: 'argocd',
          name: 'api',
          kind: 'Application',
          decision: 'paths-miss',
          detail: 'no path covers it',
        },
      ],
      history: async (_target, page) => ({ items: [], ...(page.cursor ? {} : { nextCursor: 'next' }) }),
    },
    index: {
      list: async () => ({ items: [rollout] }),
      shasWithPrefix: async (prefix) => [SHA, OTHER].filter((sha) => sha.startsWith(prefix)),
    },
    findings: { list: async () => ({ items: [{ rule: 'drift' }] }) },
    health: async () => ({ table: 'ok' }),
    logger: createMemoryLogger(),
    ...overrides,
  };
}

const get = (
  path: string,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
): HttpRequest => ({
  method: 'GET',
  path,
  query,
  headers,
  pathParameters: {},
  body: Buffer.alloc(0),
});

describe('the read API', () => {
  it('serves a rollout with each app and its sync duration', async () => {
    const response = await handleApi(get(`/rollouts/${SHA}`), deps());
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({
      sha: SHA,
      status: 'succeeded',
      apps: [{ name: 'web', durationSeconds: 30 }],
    });
  });

  it('adds every decision, misses included, when asked to', async () => {
    const body = JSON.parse(
      (await handleApi(get(`/rollouts/${SHA}`, { include: 'decisions' }), deps())).body,
    );
    expect(body.decisionRecords).toEqual([expect.objectContaining({ name: 'api', decision: 'paths-miss' })]);
    expect(
      JSON.parse((await handleApi(get(`/rollouts/${SHA}`), deps())).body).decisionRecords,
    ).toBeUndefined();
    expect((await handleApi(get(`/rollouts/${SHA}`, { include: 'everything' }), deps())).statusCode).toBe(
      400,
    );
  });

  it('finds a rollout by an upper-case sha', async () => {
    expect((await handleApi(get(`/rollouts/${SHA.toUpperCase()}`), deps())).statusCode).toBe(200);
  });

  it.each([
    { name: 'a unique short sha finds its rollout', path: '/rollouts/abcdef01', status: 200 },
    { name: 'a sha shorter than 7 is a 400', path: '/rollouts/abcdef', status: 400 },
    { name: 'a sha with a non-hex character is a 400', path: '/rollouts/abcdefg1', status: 400 },
    { name: 'a short sha nothing starts with is a 404', path: '/rollouts/1234567', status: 404 },
    { name: 'an unknown commit is a 404', path: `/rollouts/${'0'.repeat(40)}`, status: 404 },
    { name: 'an unknown route is a 404', path: '/nothing', status: 404 },
    { name: 'a bad app name is a 400', path: '/apps/hub/argocd/Bad_Name/history', status: 400 },
    { name: 'broken percent-encoding is a 400', path: '/apps/hub/%E0%A4%A/x/history', status: 400 },
  ])('$name', async ({ path, status }) => {
    expect((await handleApi(get(path), deps())).statusCode).toBe(status);
  });

  it.each([
    { name: 'a limit above 500', query: { limit: '501' } },
    { name: 'a limit that is not a number', query: { limit: 'ten' } },
    { name: 'a cursor with odd characters', query: { cursor: 'a b' } },
  ])('answers 400 to $name', async ({ query }) => {
    expect((await handleApi(get('/apps/hub/argocd/web/history', query), deps())).statusCode).toBe(400);
  });

  it('names the candidates of an ambiguous short sha in a 400', async () => {
    const response = await handleApi(get('/rollouts/abcdef0'), deps());
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'ambiguous-sha' });
    expect(JSON.parse(response.body).message).toContain(SHA);
    expect(JSON.parse(response.body).message).toContain(OTHER);
  });

  it.each([
    { name: 'a limit of 0', query: { limit: '0' } },
    { name: 'a limit above 100', query: { limit: '101' } },
    { name: 'a fractional limit', query: { limit: '1.5' } },
    { name: 'a cursor with odd characters', query: { cursor: 'a b' } },
    { name: 'an empty repo', query: { repo: '' } },
    { name: 'a ref with a newline', query: { ref: 'main\nx' } },
  ])('answers 400 to a rollout list with $name', async ({ query }) => {
    expect((await handleApi(get('/rollouts', query), deps())).statusCode).toBe(400);
  });

  it('lists rollouts as items', async () => {
    const response = await handleApi(get('/rollouts', { limit: '5' }), deps());
    expect(JSON.parse(response.body)).toMatchObject({ items: [{ sha: SHA }] });
    expect(JSON.parse(response.body).cursor).toBeUndefined();
  });

  it('pages an app history with a cursor', async () => {
    const body = JSON.parse(
      (await handleApi(get('/apps/hub/argocd/web/history', { limit: '5' }), deps())).body,
    );
    expect(body).toMatchObject({ cluster: 'hub', namespace: 'argocd', name: 'web', nextCursor: 'next' });
  });

  it.each([
    { query: { severity: 'urgent' } },
    { query: { cluster: 'Not A Cluster' } },
    { query: { rule: 'drop table' } },
    { query: { resolved: 'maybe' } },
  ])('answers 400 to findings filtered by $query', async ({ query }) => {
    expect((await handleApi(get('/findings', query), deps())).statusCode).toBe(400);
  });

  it('lists findings', async () => {
    const response = await handleApi(get('/findings', { severity: 'high' }), deps());
    expect(JSON.parse(response.body)).toEqual({ items: [{ rule: 'drift' }], nextCursor: null });
  });

  it('answers healthz', async () => {
    expect(JSON.parse((await handleApi(get('/healthz'), deps())).body)).toEqual({
      status: 'ok',
      table: 'ok',
    });
  });

  describe('with API_TOKEN set', () => {
    const withToken = deps({ apiToken: 's3cret-token' });

    it.each([
      { name: 'no Authorization header', headers: {} },
      { name: 'a wrong token', headers: { authorization: 'Bearer nope' } },
      { name: 'a Basic scheme', headers: { authorization: 'Basic s3cret-token' } },
    ])('answers 401 to $name', async ({ headers }) => {
      expect((await handleApi(get('/findings', {}, headers), withToken)).statusCode).toBe(401);
    });

    it('serves a caller with the right bearer token', async () => {
      const response = await handleApi(
        get('/findings', {}, { authorization: 'Bearer s3cret-token' }),
        withToken,
      );
      expect(response.statusCode).toBe(200);
    });

    it('answers healthz without any credentials', async () => {
      expect((await handleApi(get('/healthz'), withToken)).statusCode).toBe(200);
    });
  });

  it('answers a generic 500 without the cause when a store fails', async () => {
    const logger = createMemoryLogger();
    const failing = deps({
      logger,
      rollouts: {
        ...deps().rollouts,
        get: async () => Promise.reject(new Error('dynamo said secret-ish things')),
      },
    });
    const response = await handleApi(get(`/rollouts/${SHA}`), failing);
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('secret-ish');
    expect(logger.lines.some((l) => l.level === 'error')).toBe(true);
  });

  it('refuses other methods', async () => {
    expect((await handleApi({ ...get('/healthz'), method: 'POST' }, deps())).statusCode).toBe(405);
  });
});

describe('UI_AUTH on the pages', () => {
  const oidc = (): UiAccess => ({
    mode: 'oidc',
    deps: {
      settings: { allowed: parseAllowList('@example.com') },
      provider: {
        authorizationUrl: async () => new URL('https://login.example.com/authorize?client_id=x'),
        exchange: async () => ({ sub: 'never' }),
      },
      states: memoryLoginStates(),
      keys: async () => cookieKeys('a-session-secret-that-is-long-enough-for-tests'),
      publicUrl: () => 'https://sync.example.com',
      logger: createMemoryLogger(),
    },
  });

  it('iam: refuses the page without an IAM principal, saying what to do instead', async () => {
    const response = await handleApi(get(`/ui/rollouts/${SHA}`), deps({ uiAccess: { mode: 'iam' } }));
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('UI_AUTH=oidc');
  });

  it('iam: serves the page to a caller API Gateway authorised by IAM', async () => {
    const request = { ...get(`/ui/rollouts/${SHA}`), principal: 'arn:aws:iam::123456789012:user/alice' };
    expect((await handleApi(request, deps({ uiAccess: { mode: 'iam' } }))).statusCode).toBe(200);
  });

  it('oidc: sends a page without a session to the login, and the login to the provider', async () => {
    const access = deps({ uiAccess: oidc(), apiToken: 's3cret-token' });
    const page = await handleApi(get(`/ui/rollouts/${SHA}`, { view: 'all' }), access);
    expect(page).toMatchObject({
      statusCode: 302,
      headers: { location: `/ui/login?next=${encodeURIComponent(`/ui/rollouts/${SHA}?view=all`)}` },
    });
    const login = await handleApi(get('/ui/login', { next: '//evil.example' }), access);
    expect(login.statusCode).toBe(302);
    expect(login.headers.location).toMatch(/^https:\/\/login\.example\.com\/authorize/);
    expect(login.headers['set-cookie']).toMatch(
      /^gitops_sync_login=[^;]+; Path=\/ui\/callback; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
  });

  it('oidc: the JSON API keeps its own token (a session cookie is no credential there)', async () => {
    const access = deps({ uiAccess: oidc(), apiToken: 's3cret-token' });
    expect((await handleApi(get('/findings'), access)).statusCode).toBe(401);
  });
});
