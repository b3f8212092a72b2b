import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../lib/cli/main.js';
import { COMMANDS } from '../../../lib/cli/usage.js';

let server: Server;
let port: number;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs the CLI with a fetch that records every request it is asked to make. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const requested: string[] = [];
  const recording: typeof fetch = (input, init) => {
    requested.push(String(input));
    return fetch(input, init);
  };
  const code = await runCli(argv, {
    env,
    fetch: recording,
    credentials: async () => ({ accessKeyId: 'AKIDTRANSPORT', secretAccessKey: 'never-sent' }),
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err, requested };
}

describe('credentials never go over plain http off loopback', () => {
  it.each([
    ['API_TOKEN to a named host', 'http://example.invalid', { API_TOKEN: 't' }],
    ['SigV4 to a named host', 'http://example.invalid:8080/api', {}],
    ['API_TOKEN to a private address', 'http://10.0.0.5', { API_TOKEN: 't' }],
    ['a host that only starts like a loopback address', 'http://127.example.invalid', { API_TOKEN: 't' }],
  ])('refuses %s with one line and exit 2, asking for nothing', async (_name, url, env) => {
    const { code, err, requested } = await run(['rollouts', '--url', url], env);
    expect(code).toBe(2);
    expect(err).toEqual([
      `gitops-sync: --url ${new URL(url).origin}: credentials are only sent over https (plain http is for loopback)`,
    ]);
    expect(requested).toEqual([]);
  });

  it('refuses a control command to a plain http host the same way', async () => {
    const { code, requested } = await run(['pause', 'abc1234', '--url', 'http://example.invalid'], {
      API_TOKEN: 't',
    });
    expect(code).toBe(2);
    expect(requested).toEqual([]);
  });

  it.each([
    ['127.0.0.1', `http://127.0.0.1:PORT`],
    ['localhost', `http://localhost:PORT`],
  ])('still sends API_TOKEN over plain http to %s', async (_name, url) => {
    const { code } = await run(['rollouts', '--url', url.replace('PORT', String(port))], {
      API_TOKEN: 'local',
    });
    expect(code).toBe(0);
    expect(seen.at(-1)?.authorization).toBe('Bearer local');
  });

  it('treats all of 127.0.0.0/8 as loopback (the request is attempted)', async () => {
    const { code, requested } = await run(['rollouts', '--url', `http://127.0.0.2:${port}`], {
      API_TOKEN: 't',
    });
    expect(code).not.toBe(2);
    expect(requested).toHaveLength(1);
  });
});

describe('--help and --version', () => {
  it.each(Object.keys(COMMANDS))('gitops-sync %s --help prints its usage and exits 0', async (command) => {
    for (const flag of ['--help', '-h']) {
      const { code, out, err, requested } = await run([command, flag]);
      expect(code).toBe(0);
      expect(err).toEqual([]);
      expect(out.join('\n').split('\n')[0]).toBe(
        `usage: gitops-sync ${COMMANDS[command as keyof typeof COMMANDS][0]}`,
      );
      expect(requested).toEqual([]);
    }
  });

  it('gitops-sync --help lists every command, exit 0; no command at all is a usage error', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const [line] of Object.values(COMMANDS)) expect(help.out.join('\n')).toContain(`  ${line}\n`);
    expect((await run([])).code).toBe(2);
  });

  it('gitops-sync --version prints the package version', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(await run(['--version'])).toMatchObject({ code: 0, out: [version], err: [] });
  });
});
