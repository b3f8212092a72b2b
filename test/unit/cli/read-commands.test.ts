import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../lib/cli/main.js';

interface Seen {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

// A loopback read API serving SPEC-shaped answers for `GET /rollouts` and `GET /findings`.
let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/rollouts') {
      res.end(
        JSON.stringify({
          items: [
            {
              sha: 'a'.repeat(40),
              repo: 'https://github.com/example/platform',
              ref: 'refs/heads/main',
              status: 'partial',
              receivedAt: '2026-12-01T09:00:00.000Z',
              counts: { synced: 3, blocked: 1 },
            },
            {
              sha: 'b'.repeat(40),
              repo: 'https://github.com/example/platform',
              ref: 'refs/heads/main',
              status: 'succeeded',
              receivedAt: '2026-12-01T08:00:00.000Z',
              counts: { synced: 4 },
            },
          ],
          cursor: 'next-page',
        }),
      );
      return;
    }
    if (url.pathname === '/findings') {
      res.end(
        JSON.stringify({
          items: [
            {
              cluster: 'hub',
              namespace: 'argocd',
              app: 'web',
              rule: 'floating-image-tag',
              severity: 'medium',
              message: 'image web:latest',
              firstSeen: '2026-12-01T08:00:00Z',
              lastSeen: '2026-12-01T09:00:00Z',
            },
          ],
          nextCursor: null,
        }),
      );
      return;
    }
    if (url.pathname.startsWith('/redirect/')) {
      res.writeHead(302, { location: 'http://example.com/' }).end();
      return;
    }
    res
      .writeHead(404)
      .end(JSON.stringify({ error: 'not-found', message: `no route for GET ${url.pathname}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('gitops-sync rollouts', () => {
  it('asks for the repository and ref given and prints one row per rollout, newest first', async () => {
    const { code, out } = await run([
      'rollouts',
      '--url',
      base,
      '--repo',
      'https://github.com/example/platform',
      '--ref',
      'refs/heads/main',
      '--limit',
      '2',
    ]);
    expect(code).toBe(0);
    const url = new URL(seen.at(-1)?.url ?? '', 'http://x');
    expect(url.pathname).toBe('/rollouts');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      repo: 'example/platform',
      ref: 'refs/heads/main',
      limit: '2',
    });
    expect(out[0]).toMatch(/^ {2}SHA +STATUS +REPO +REF +RECEIVED +APPS$/);
    expect(out[1]).toMatch(
      /^ {2}a{12} +partial +https:\/\/github.com\/example\/platform +refs\/heads\/main +2026-12-01T09:00:00.000Z +synced 3, blocked 1$/,
    );
    expect(out[2]).toContain('succeeded');
    expect(out.at(-1)).toBe('more: add --cursor next-page');
  });

  it('sends no credentials to a loopback URL, and API_TOKEN as a bearer token when set', async () => {
    await run(['rollouts', '--url', base]);
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
    await run(['rollouts', '--url', base], { API_TOKEN: 'read-token' });
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer read-token');
  });
});

describe('gitops-sync findings', () => {
  it('prints the findings table with the filters it was given', async () => {
    const { code, out } = await run(['findings', '--url', base, '--severity', 'medium', '--resolved']);
    expect(code).toBe(0);
    expect(Object.fromEntries(new URL(seen.at(-1)?.url ?? '', 'http://x').searchParams)).toEqual({
      severity: 'medium',
      resolved: 'true',
    });
    expect(out).toEqual([
      '  CLUSTER  APP         RULE                SEVERITY  LAST SEEN             MESSAGE',
      '  hub      argocd/web  floating-image-tag  medium    2026-12-01T09:00:00Z  image web:latest',
    ]);
  });
});

describe('gitops-sync read errors', () => {
  it('prints the API answer on stderr and exits 1', async () => {
    const { code, err } = await run(['rollout', 'abc1234', '--url', `${base}/nowhere`]);
    expect(code).toBe(1);
    expect(err).toEqual(['rollout abc1234: 404 no route for GET /nowhere/rollouts/abc1234']);
  });

  it('names the unreachable URL and the connection error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { code, err } = await run(['rollouts', '--url', `http://127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(err[0]).toBe(`cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`);
  });

  it('never follows a redirect with credentials', async () => {
    const { code, err } = await run(['rollouts', '--url', `${base}/redirect/`], { API_TOKEN: 't' });
    expect(code).toBe(1);
    expect(err[0]).toContain('answered a redirect (302)');
  });

  it('answers usage errors with exit code 2', async () => {
    expect((await run(['rollout'])).code).toBe(2);
    expect((await run(['nonsense'])).code).toBe(2);
    expect((await run(['rollouts', '--bogus'])).code).toBe(2);
  });
});
