import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../lib/cli/main.js';

interface Seen {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

const WAVED = {
  sha: 'e'.repeat(40),
  repo: 'example/platform',
  ref: 'refs/heads/main',
  status: 'paused',
  trigger: 'webhook',
  receivedAt: '2026-12-01T09:00:00Z',
  apps: [
    {
      cluster: 'staging',
      kind: 'Application',
      namespace: 'argocd',
      name: 'web',
      state: 'synced',
      wave: 'canary',
    },
    {
      cluster: 'prod',
      kind: 'Application',
      namespace: 'argocd',
      name: 'web',
      state: 'held',
      wave: 'prod',
      message: 'paused',
    },
  ],
  waves: [
    {
      name: 'canary',
      state: 'done',
      clusters: ['staging'],
      openedAt: '2026-12-01T09:00:01Z',
      doneAt: '2026-12-01T09:03:00Z',
    },
    { name: 'prod', state: 'waiting', clusters: ['prod', 'prod-us'] },
  ],
  actions: [
    {
      action: 'pause',
      by: 'arn:aws:iam::123456789012:user/ops',
      at: '2026-12-01T09:04:00Z',
      detail: 'checking',
    },
  ],
  ungated: [{ cluster: 'prod', namespace: 'argocd', reason: 'polling on' }],
};

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
    if (url.pathname === '/many/findings') {
      const finding = (cluster: string, app: string, severity: string) => ({
        cluster,
        namespace: 'argocd',
        app,
        rule: 'r',
        severity,
        message: 'm',
        lastSeen: '2026-12-01T09:00:00Z',
      });
      res.end(
        JSON.stringify({
          items: [
            finding('b', 'web', 'low'),
            finding('b', 'api', 'high'),
            finding('a', 'web', 'medium'),
            finding('a', 'zed', 'high'),
            finding('a', 'web', 'critical'),
          ],
        }),
      );
      return;
    }
    if (url.pathname === `/rollouts/${'e'.repeat(40)}`) {
      res.end(JSON.stringify(WAVED));
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

describe('gitops-sync rollout with waves', () => {
  it("prints the waves, each app's wave, the operators' actions and the ungated instances", async () => {
    const { code, out } = await run(['rollout', 'e'.repeat(40), '--url', base]);
    expect(code).toBe(0);
    expect(out.slice(5)).toEqual([
      'waves:',
      '  WAVE    STATE    CLUSTERS      OPENED                DONE',
      '  canary  done     staging       2026-12-01T09:00:01Z  2026-12-01T09:03:00Z',
      '  prod    waiting  prod,prod-us',
      'actions:',
      '  ACTION  BY                                  AT                    DETAIL',
      '  pause   arn:aws:iam::123456789012:user/ops  2026-12-01T09:04:00Z  checking',
      'ungated (Argo CD polls Git itself: a hold there is not guaranteed):',
      '  CLUSTER  NAMESPACE  REASON',
      '  prod     argocd     polling on',
    ]);
    expect(out[1]).toMatch(/^ {2}WAVE +CLUSTER +OBJECT +STATE +DETAIL$/);
    expect(out[2]).toMatch(/^ {2}prod +prod +Application\/web +held +paused$/);
    expect(out[3]).toMatch(/^ {2}canary +staging +Application\/web +synced$/);
    expect(out[4]).toBe('counts: held 1, synced 1');
  });

  it('prints no wave column or sections for a rollout without them', async () => {
    const { out } = await run(['rollout', 'abc1234', '--url', `${base}/nowhere`]);
    expect(out.join('\n')).not.toMatch(/waves:|actions:|ungated|WAVE/);
  });
});

describe('gitops-sync findings order', () => {
  it('lists high severity first, then by cluster and app', async () => {
    const { out } = await run(['findings', '--url', `${base}/many`]);
    expect(out.slice(1).map((line) => line.split(/ +/).slice(1, 5).join(' '))).toEqual([
      'a argocd/web r critical',
      'a argocd/zed r high',
      'b argocd/api r high',
      'a argocd/web r medium',
      'b argocd/web r low',
    ]);
  });
});

describe('gitops-sync rollouts --repo', () => {
  it.each([
    ['owner/name as typed', 'Example/Platform', 'Example/Platform'],
    ['an https URL with .git', 'https://github.com/Example/Platform.git', 'Example/Platform'],
    ['an scp-style URL', 'git@github.com:Example/Platform.git', 'Example/Platform'],
    ['an ssh URL', 'ssh://git@github.com/Example/Platform', 'Example/Platform'],
    ['a GitLab subgroup URL', 'https://gitlab.com/group/sub/proj/', 'group/sub/proj'],
    ['an Azure DevOps URL as project/repo', 'https://dev.azure.com/org/Proj/_git/Repo', 'Proj/Repo'],
    [
      'an image repository (registry rollouts)',
      'oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com/Charts/Web/',
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web',
    ],
  ])('asks the API for the full name, from %s', async (_name, input, expected) => {
    const { code } = await run(['rollouts', '--url', base, '--repo', input]);
    expect(code).toBe(0);
    expect(new URL(seen.at(-1)?.url ?? '', 'http://x').searchParams.get('repo')).toBe(expected);
  });

  it('refuses what is not a repository before sending anything (exit 2)', async () => {
    const before = seen.length;
    const { code, err } = await run(['rollouts', '--url', base, '--repo', 'ftp://registry/x']);
    expect(code).toBe(2);
    expect(err).toEqual([
      'gitops-sync: --repo ftp://registry/x: not owner/name, a Git repository URL or oci://host/path',
    ]);
    expect(seen.length).toBe(before);
  });
});
