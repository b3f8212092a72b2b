import { describe, expect, it } from 'vitest';
import { type ApiDeps, handleApi } from '../../../lib/api/handle-api.js';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';

const SHA = 'f'.repeat(40);
const TOKEN = 'local-api-token';
const rollout: Rollout = {
  sha: SHA,
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-01T09:00:00.000Z',
  status: 'succeeded',
  counts: { synced: 1 },
  decisions: {},
  apps: [{ cluster: 'hub', namespace: 'argocd', name: 'web', kind: 'Application', state: 'synced' }],
};

const deps: ApiDeps = {
  rollouts: {
    get: async (sha) => (sha === SHA ? rollout : undefined),
    summary: async (sha) => (sha === SHA ? rollout : undefined),
    listApps: async () => [],
    decisions: async (sha) =>
      sha === SHA
        ? [{ cluster: 'hub', namespace: 'argocd', name: 'docs', kind: 'Application', decision: 'paths-miss' }]
        : [],
    history: async () => ({ items: [] }),
  },
  index: {
    list: async () => ({ items: [rollout] }),
    shasWithPrefix: async (prefix) => (SHA.startsWith(prefix) ? [SHA] : []),
  },
  findings: { list: async () => ({ items: [] }) },
  health: async () => ({}),
  logger: createMemoryLogger(),
  apiToken: TOKEN,
};

const get = (
  path: string,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
): HttpRequest => ({
  method: 'GET',
  path,
  query,
  headers: { host: 'sync.example', ...headers },
  pathParameters: {},
  body: Buffer.alloc(0),
});

describe('the pages and their sign-in', () => {
  it('answers 401 with a page explaining the one-time token when not signed in', async () => {
    const response = await handleApi(get('/ui/'), deps);
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('?token=');
  });

  it('swaps a valid token for an HttpOnly cookie and a redirect that drops the token', async () => {
    const login = await handleApi(get(`/ui/rollouts/${SHA}`, { token: TOKEN, x: '1' }), deps);
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe(`/ui/rollouts/${SHA}?x=1`);
    const cookie = login.headers['set-cookie'] ?? '';
    expect(cookie).toMatch(/^gitops_sync_ui=[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    expect(cookie).not.toContain(TOKEN);
    const page = await handleApi(
      get(`/ui/rollouts/${SHA}`, {}, { cookie: cookie.split(';')[0] ?? '' }),
      deps,
    );
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-state="synced"');
    // The same cookie reads the JSON API the page refreshes from.
    const json = await handleApi(get(`/rollouts/${SHA}`, {}, { cookie: cookie.split(';')[0] ?? '' }), deps);
    expect(json.statusCode).toBe(200);
  });

  it('never redirects to another origin after sign-in', async () => {
    const login = await handleApi(get('//ui', { token: TOKEN }), deps);
    expect(login.headers.location).toBe('/ui');
  });

  it('refuses a wrong token and a forged cookie', async () => {
    expect((await handleApi(get('/ui/', { token: 'guess' }), deps)).statusCode).toBe(401);
    expect((await handleApi(get('/ui/', {}, { cookie: 'gitops_sync_ui=forged' }), deps)).statusCode).toBe(
      401,
    );
    expect(
      (await handleApi(get('/rollouts', {}, { cookie: 'gitops_sync_ui=forged' }), deps)).statusCode,
    ).toBe(401);
  });

  it('serves pages with a nonce-only script policy, by bearer token too, and a short sha', async () => {
    const page = await handleApi(get('/ui/rollouts/fffffff', {}, { authorization: `Bearer ${TOKEN}` }), deps);
    expect(page.statusCode).toBe(200);
    const policy = page.headers['content-security-policy'] ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(page.body).toContain(`<script nonce="${nonce}">`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
  });

  it.each([
    { name: 'a non-hex sha', path: '/ui/rollouts/zzzzzzz', status: 400 },
    { name: 'an unknown commit', path: `/ui/rollouts/${'0'.repeat(40)}`, status: 404 },
    { name: 'an unknown page', path: '/ui/elsewhere', status: 404 },
  ])('answers $status to $name with a page', async ({ path, status }) => {
    const response = await handleApi(get(path, {}, { authorization: `Bearer ${TOKEN}` }), deps);
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain(`<h1 data-error="${status}">`);
  });

  it('lists the objects the push did not refresh, read from the decisions', async () => {
    const page = await handleApi(get(`/ui/rollouts/${SHA}`, {}, { authorization: `Bearer ${TOKEN}` }), deps);
    expect(page.body).toContain('data-decision="paths-miss" data-object="hub/argocd/docs"');
  });

  it('filters the list by repository and takes an empty filter as none', async () => {
    const seen: unknown[] = [];
    const filtered: ApiDeps = {
      ...deps,
      index: {
        ...deps.index,
        list: async (filter) => {
          seen.push(filter);
          return { items: [rollout] };
        },
      },
    };
    const auth = { authorization: `Bearer ${TOKEN}` };
    const page = await handleApi(get('/ui/', { repo: 'org/gitops' }, auth), filtered);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="repo" value="org/gitops"');
    expect((await handleApi(get('/ui/', { repo: '' }, auth), filtered)).statusCode).toBe(200);
    expect(seen).toEqual([{ repo: 'org/gitops' }, {}]);
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
  });

  it('filters a rollout page on a state and answers an unknown state with a 400 page', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const page = await handleApi(get(`/ui/rollouts/${SHA}`, { state: 'synced' }, auth), deps);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-state-shown="synced"');
    const bad = await handleApi(get(`/ui/rollouts/${SHA}`, { state: 'sideways' }, auth), deps);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('text/html');
    expect(bad.body).toContain('state must be one of');
  });

  it("serves an app's history page from the history reader, and a 400 page for a name that is not one", async () => {
    const asked: unknown[] = [];
    const withHistory: ApiDeps = {
      ...deps,
      rollouts: {
        ...deps.rollouts,
        history: async (target, page) => {
          asked.push({ target, page });
          return {
            items: [
              {
                ...rollout.apps[0],
                sha: SHA,
                repo: 'org/gitops',
                ref: 'refs/heads/main',
                trigger: 'webhook',
                receivedAt: rollout.receivedAt,
              } as never,
            ],
            nextCursor: 'next1',
          };
        },
      },
    };
    const auth = { authorization: `Bearer ${TOKEN}` };
    const page = await handleApi(get('/ui/apps/hub/argocd/web', {}, auth), withHistory);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/ui/rollouts/${SHA}"`);
    expect(page.body).toContain('href="?cursor=next1"');
    expect(asked).toEqual([
      { target: { cluster: 'hub', namespace: 'argocd', name: 'web' }, page: { limit: 50 } },
    ]);
    const bad = await handleApi(get('/ui/apps/hub/Argo_CD/web', {}, auth), withHistory);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('namespace must be a Kubernetes name');
  });
});
