import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArgoCdApiOptions, createArgoCdApi } from '../../../lib/argocd-api/argocd-api.js';
import { ARGO_TOKEN, application, type RenderWorld, startRenderWorld, yaml } from './harness.js';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the Argo CD API client against the API server double', () => {
  let world: RenderWorld;
  const waits: number[] = [];
  const api = (options: Partial<ArgoCdApiOptions> = {}) =>
    createArgoCdApi({
      url: world.argocd.url,
      token: async () => ARGO_TOKEN,
      backoffMs: 1,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...options,
    });
  const query = { name: 'plain', appNamespace: 'argocd', project: 'team-a' };

  beforeAll(async () => {
    world = await startRenderWorld(
      { 'plain/cm.yaml': yaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }) },
      [],
    );
    world.addApp(
      application('plain', { source: { repoURL: world.repoUrl, path: 'plain', targetRevision: 'main' } }),
    );
  });
  afterAll(async () => {
    await world?.close();
  });

  it('reads the manifests as objects, each a JSON string in the answer', async () => {
    const rendered = await api().manifests({ ...query, revision: world.sha });
    expect(rendered.revision).toBe(world.sha);
    expect(rendered.documents).toMatchObject([
      { path: 'argocd:manifests[0]', doc: { kind: 'ConfigMap', metadata: { name: 'c' } } },
    ]);
  });

  it('retries a 503 with backoff and then succeeds', async () => {
    world.argocd.faults.set({ status: 503, times: 2 });
    const before = world.argocd.requests.length;
    const rendered = await api().manifests(query);
    expect(rendered.documents).toHaveLength(1);
    expect(world.argocd.requests.length - before).toBe(3);
  });

  it('waits as long as a 429 Retry-After says', async () => {
    waits.length = 0;
    world.argocd.faults.set({ status: 429, retryAfterSeconds: 2, times: 1 });
    await api().manifests(query);
    expect(waits).toEqual([2000]);
  });

  it('gives up at once when Retry-After is longer than it would wait', async () => {
    world.argocd.faults.set({ status: 429, retryAfterSeconds: 600, times: 1 });
    const before = world.argocd.requests.length;
    await expect(api().manifests(query)).rejects.toThrow(/answered 429/);
    expect(world.argocd.requests.length - before).toBe(1);
  });

  it('ends a slow answer at its deadline without retrying it', async () => {
    world.argocd.faults.set({ latencyMs: 400, times: 1 });
    const before = world.argocd.requests.length;
    await expect(api({ timeoutMs: 100 }).manifests(query)).rejects.toThrow(/no answer within 100 ms/);
    expect(world.argocd.requests.length - before).toBe(1);
  });

  it("ends a slow answer at the caller's work deadline when it comes before the timeout, as cut by it", async () => {
    world.argocd.faults.set({ latencyMs: 400, times: 1 });
    const started = Date.now();
    const failure = await api({ timeoutMs: 20_000 })
      .manifests(query, { deadlineMs: started + 100 })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ cutByDeadline: true, retryable: true });
    expect(Date.now() - started).toBeLessThan(350);
    // A deadline already passed sends nothing.
    const before = world.argocd.requests.length;
    await expect(api().manifests(query, { deadlineMs: Date.now() - 1 })).rejects.toMatchObject({
      cutByDeadline: true,
    });
    expect(world.argocd.requests.length).toBe(before);
  });

  it.each([
    ['an unknown token', { token: async () => 'not-a-token' }, query, /401: the token was not accepted/],
    [
      'a token without the project',
      { token: async () => 'team-b-token' },
      query,
      /403: the token may not get/,
    ],
    ['a missing app in a named project', {}, { ...query, name: 'nope' }, /404: no such application/],
    ['a missing app without a project', {}, { name: 'nope', appNamespace: 'argocd' }, /403/],
  ])('names the status for %s', async (_, options, q, message) => {
    await expect(api(options).manifests(q)).rejects.toThrow(message);
  });

  it('never follows a redirect, so the token goes nowhere else', async () => {
    const elsewhere: string[] = [];
    const other = await listen((req, res) => {
      elsewhere.push(req.headers.authorization ?? '');
      res.end('{}');
    });
    const redirecting = await listen((_, res) => {
      res.writeHead(302, { Location: `${other.url}/api/v1/applications/plain/manifests` });
      res.end();
    });
    try {
      await expect(api({ url: redirecting.url }).manifests(query)).rejects.toThrow(
        /302 \(a redirect, not followed/,
      );
      expect(elsewhere).toEqual([]);
    } finally {
      redirecting.server.close();
      other.server.close();
    }
  });

  it('keeps the token out of its errors even when the server echoes it', async () => {
    const echo = await listen((req, res) => {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'x', code: 2, message: `bad header ${req.headers.authorization}` }));
    });
    try {
      const error = await api({ url: echo.url, retries: 0 })
        .manifests(query)
        .then(
          () => new Error('no error'),
          (e: unknown) => e as Error,
        );
      expect(error.message).toMatch(/answered 500: bad header Bearer \[token\]/);
      expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(ARGO_TOKEN);
    } finally {
      echo.server.close();
    }
  });

  it('keeps at most `concurrency` requests in flight against one Argo CD', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = await listen((_, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"manifests":[]}');
      }, 30);
    });
    try {
      const client = api({ url: slow.url, concurrency: 3 });
      await Promise.all(Array.from({ length: 10 }, (_, i) => client.manifests({ ...query, name: `a${i}` })));
      expect(most).toBe(3);
    } finally {
      slow.server.close();
    }
  });
});
