import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lib/cli/main.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const SHA = 'c'.repeat(40);
const FREEZE = {
  id: 'frz-1',
  repo: 'example/platform',
  reason: 'release train',
  until: '2026-12-03T00:00:00Z',
  by: 'token',
  at: '2026-12-02T05:00:00Z',
};

// A loopback API answering the SPEC's control routes: 200 rollout JSON, 404, 409 {"error"}, 201, 204.
let server: Server;
let base: string;
let seen: Seen[] = [];

function answer(method: string, path: string): [number, unknown?] {
  const action = /^\/rollouts\/([^/]+)\/(pause|resume|abort|retry)$/.exec(path);
  if (method === 'POST' && action) {
    if (action[1] === 'd'.repeat(40)) return [404, { error: `no rollout ${action[1]}` }];
    if (action[2] === 'resume') return [409, { error: 'rollout is neither halted nor paused' }];
    const status = { pause: 'paused', abort: 'aborted', retry: 'in-progress' }[action[2] as string];
    return [200, { sha: SHA, status, apps: [] }];
  }
  if (method === 'POST' && path === '/freezes') return [201, FREEZE];
  if (method === 'GET' && path === '/freezes')
    return [200, { items: [FREEZE, { ...FREEZE, id: 'frz-2', repo: undefined }] }];
  if (method === 'DELETE' && path === '/freezes/frz-1') return [204];
  if (method === 'DELETE' && path.startsWith('/freezes/')) return [404, { error: 'no such freeze' }];
  if (method === 'POST' && path === '/unpin') return [200, { unpinned: 3 }];
  return [404, { error: `no route for ${method} ${path}` }];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const [status, json] = answer(req.method ?? '', new URL(req.url ?? '/', 'http://x').pathname);
      if (json === undefined) res.writeHead(status).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  seen = [];
});

async function run(argv: string[], env: Record<string, string> = { API_TOKEN: 'control-token' }) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...argv, '--url', base], {
    env,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}

const sent = () => {
  const last = seen.at(-1);
  return {
    method: last?.method,
    url: last?.url,
    body: last?.body === '' ? undefined : JSON.parse(last?.body ?? ''),
  };
};

describe('gitops-sync pause, resume, abort and retry', () => {
  it.each([
    ['pause posts no body', ['pause', SHA], `/rollouts/${SHA}/pause`, undefined],
    ['abort posts no body', ['abort', SHA], `/rollouts/${SHA}/abort`, undefined],
    ['retry without a target posts no body', ['retry', SHA], `/rollouts/${SHA}/retry`, undefined],
    [
      'retry of one app by namespace/name in one cluster',
      ['retry', SHA, '--cluster', 'prod-eu', '--app', 'shop/web'],
      `/rollouts/${SHA}/retry`,
      { cluster: 'prod-eu', namespace: 'shop', name: 'web' },
    ],
    [
      'retry of an app by its name only',
      ['retry', SHA, '--app', 'web'],
      `/rollouts/${SHA}/retry`,
      { name: 'web' },
    ],
  ])('%s', async (_name, argv, path, body) => {
    const { code, out } = await run(argv);
    expect(code).toBe(0);
    expect(sent()).toEqual({ method: 'POST', url: path, body });
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer control-token');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^(paused|aborted|retried) c{12}: status (paused|aborted|in-progress)$/);
  });

  it('sends skipFailed on resume --skip-failed and prints the 409 error text, exit 1', async () => {
    const { code, out, err } = await run(['resume', 'abc1234', '--skip-failed']);
    expect(sent()).toEqual({ method: 'POST', url: '/rollouts/abc1234/resume', body: { skipFailed: true } });
    expect(seen.at(-1)?.headers['content-type']).toBe('application/json');
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err).toEqual(['resume abc1234: 409 rollout is neither halted nor paused']);
  });

  it('prints the 404 of an unknown commit, exit 1', async () => {
    const { code, err } = await run(['pause', 'd'.repeat(40)]);
    expect(code).toBe(1);
    expect(err).toEqual([`pause ${'d'.repeat(40)}: 404 no rollout ${'d'.repeat(40)}`]);
  });

  it('refuses what is not a commit SHA before sending anything (exit 2)', async () => {
    const { code, err } = await run(['abort', '../freezes']);
    expect(code).toBe(2);
    expect(err[0]).toBe('gitops-sync: ../freezes: not a commit SHA or rollout key (7 to 64 hex characters)');
    expect(seen).toEqual([]);
  });

  it('takes a registry rollout key, the 64 hex characters of an image digest', async () => {
    const key = 'e'.repeat(64);
    const { code } = await run(['pause', key]);
    expect(code).toBe(0);
    expect(seen.map((s) => s.url)).toEqual([`/rollouts/${key}/pause`]);
  });
});

describe('gitops-sync freeze, freezes, unfreeze and unpin', () => {
  it('freeze posts the scope, reason and end, and prints the new id', async () => {
    const { code, out } = await run([
      'freeze',
      '--repo',
      'example/platform',
      '--reason',
      'release train',
      '--until',
      '2026-12-03T00:00:00Z',
    ]);
    expect(code).toBe(0);
    expect(sent()).toEqual({
      method: 'POST',
      url: '/freezes',
      body: { repo: 'example/platform', reason: 'release train', until: '2026-12-03T00:00:00Z' },
    });
    expect(out).toEqual(['frozen frz-1: repo example/platform until 2026-12-03T00:00:00Z (release train)']);
  });

  it('freeze without --reason is a usage error and sends nothing', async () => {
    const { code, err } = await run(['freeze', '--cluster', 'prod-*']);
    expect(code).toBe(2);
    expect(err[0]).toBe('gitops-sync: freeze needs --reason TEXT');
    expect(seen).toEqual([]);
  });

  it('freezes lists every freeze in force, a freeze with no scope as the whole fleet', async () => {
    const { code, out } = await run(['freezes']);
    expect(code).toBe(0);
    expect(sent()).toMatchObject({ method: 'GET', url: '/freezes' });
    expect(out[0]).toMatch(/^ {2}ID +SCOPE +UNTIL +BY +AT +REASON$/);
    expect(out[1]).toMatch(
      /^ {2}frz-1 +repo example\/platform +2026-12-03T00:00:00Z +token .* release train$/,
    );
    expect(out[2]).toMatch(/^ {2}frz-2 +the whole fleet +/);
  });

  it('unfreeze deletes the freeze (204), and prints the 404 of an unknown one', async () => {
    expect(await run(['unfreeze', 'frz-1'])).toEqual({ code: 0, out: ['unfrozen frz-1'], err: [] });
    expect(sent()).toEqual({ method: 'DELETE', url: '/freezes/frz-1', body: undefined });
    const missing = await run(['unfreeze', 'frz-9']);
    expect(missing.code).toBe(1);
    expect(missing.err).toEqual(['unfreeze frz-9: 404 no such freeze']);
  });

  it('unpin posts the repository when given, an empty body otherwise', async () => {
    expect((await run(['unpin', '--repo', 'git@github.com:example/platform.git'])).out).toEqual([
      'unpinned git@github.com:example/platform.git (3 apps)',
    ]);
    expect(sent()).toEqual({
      method: 'POST',
      url: '/unpin',
      body: { repo: 'git@github.com:example/platform.git' },
    });
    expect((await run(['unpin'])).out).toEqual(['unpinned every repository (3 apps)']);
    expect(sent().body).toEqual({});
  });

  it('signs a control request with SigV4, body included, when no API_TOKEN is set', async () => {
    const out: string[] = [];
    const code = await runCli(['pause', SHA, '--url', base, '--sigv4', '--region', 'eu-west-1'], {
      env: {},
      credentials: async () => ({ accessKeyId: 'AKIDCONTROL', secretAccessKey: 'never-sent' }),
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    expect(code).toBe(0);
    const headers = seen.at(-1)?.headers;
    expect(String(headers?.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDCONTROL\/\d{8}\/eu-west-1\/execute-api\//,
    );
    expect(JSON.stringify(headers)).not.toContain('never-sent');
  });
});
