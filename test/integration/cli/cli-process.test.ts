import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sha256 } from '../../../lib/kubernetes/eks-token.js';

const exec = promisify(execFile);
const FAKE = {
  accessKeyId: 'AKIDFAKECLITEST',
  secretAccessKey: 'fake-secret-never-sent',
  sessionToken: 'fake-session',
};

let home: string;
let server: Server;
let base: string;
const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'gitops-sync-cli-'));
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ items: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(home, { recursive: true, force: true });
});

/** The CLI as a user runs it, with only fake credentials in reach (no profile, no instance metadata). */
function cli(args: string[], extra: Record<string, string> = {}) {
  return exec(process.execPath, ['bin/gitops-sync.mjs', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
      ...extra,
    },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

describe('the gitops-sync command', () => {
  it('signs read requests with SigV4 from the caller credentials, exactly as sent, never sending the secret', async () => {
    const result = await cli(
      ['rollouts', '--url', base, '--sigv4', '--region', 'eu-west-1', '--ref', 'refs/heads/a b'],
      {
        AWS_ACCESS_KEY_ID: FAKE.accessKeyId,
        AWS_SECRET_ACCESS_KEY: FAKE.secretAccessKey,
        AWS_SESSION_TOKEN: FAKE.sessionToken,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const request = seen.at(-1);
    const authorization = String(request?.headers.authorization);
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKECLITEST\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=\S*host\S*, Signature=[0-9a-f]{64}$/,
    );
    expect(request?.headers['x-amz-security-token']).toBe(FAKE.sessionToken);
    expect(JSON.stringify(request?.headers)).not.toContain(FAKE.secretAccessKey);
    // Re-sign what arrived: the same signature proves the query and headers were sent as they were signed.
    const url = new URL(request?.url ?? '', base);
    const amzDate = String(request?.headers['x-amz-date']);
    const signingDate = new Date(
      `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
    );
    const signed = await new SignatureV4({
      service: 'execute-api',
      region: 'eu-west-1',
      credentials: FAKE,
      sha256: Sha256,
    }).sign(
      {
        method: 'GET',
        protocol: 'http:',
        hostname: '127.0.0.1',
        port: Number(url.port),
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { host: String(request?.headers.host) },
      },
      { signingDate },
    );
    expect(signed.headers.authorization).toBe(authorization);
  });

  it('prints its version, and refuses API_TOKEN over plain http to a non-loopback host before connecting', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const before = seen.length;
    const refused = await cli(['rollouts', '--url', 'http://example.invalid'], { API_TOKEN: 'secret-token' });
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toBe(
      'gitops-sync: --url http://example.invalid: credentials are only sent over https (plain http is for loopback)\n',
    );
    expect(refused.stderr).not.toContain('secret-token');
    const local = await cli(['rollouts', '--url', base], { API_TOKEN: 'secret-token' });
    expect(local.code).toBe(0);
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer secret-token');
  }, 60_000);

  it('runs through npx from the repository and validates (exit 0, or exit 1 with every problem in line order)', async () => {
    const npx = (args: string[]) =>
      exec('npx', ['gitops-sync', ...args], { env: { ...process.env, npm_config_offline: 'true' } }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: error.code ?? -1,
          stdout: error.stdout ?? '',
          stderr: error.stderr ?? '',
        }),
      );
    const good = await npx(['validate', 'fleet.example.yaml']);
    expect(good).toMatchObject({
      code: 0,
      stdout: 'fleet.example.yaml: valid (2 clusters, 2 repositories)\n',
    });
    const bad = join(home, 'bad.yaml');
    await writeFile(
      bad,
      'clusters:\n  - name: lab\n    server: http://127.0.0.1:1\n    auth: { token: t }\n',
    );
    const refused = await cli(['validate', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `${bad}:3: clusters[0].server: plain http:// is only for the local stack (validate --local); use https://`,
      `${bad}:4: clusters[0].auth.token: a literal token is only for the local stack (validate --local); use tokenSecret`,
    ]);
    expect((await cli(['validate', '--local', bad])).code).toBe(0);
  }, 60_000);

  it('validate reports each wave problem at its line', async () => {
    const file = join(home, 'waves.yaml');
    await writeFile(
      file,
      [
        'clusters:',
        '  - { name: staging-1, server: https://s.example, auth: { tokenSecret: s }, labels: { tier: staging } }',
        '  - { name: prod-1, server: https://p.example, auth: { tokenSecret: p }, labels: { tier: prod } }',
        'waves:',
        '  - name: rest',
        '  - name: canary',
        '    clusters: [staging-*, prod-2]',
        '    soak: 5 minutes',
        '  - name: prod',
        '    clusters: [staging-1]',
        '    selector: { tier: prod }',
        '',
      ].join('\n'),
    );
    const result = await cli(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${file}:5: waves[0]: has neither clusters nor selector (it takes every cluster left), so it must be the last wave`,
      `${file}:7: waves[1].clusters[1]: names no cluster of this fleet (did you mean "prod-1"?)`,
      `${file}:8: waves[1].soak: must be a duration such as 30s, 5m, 1h or 1h30m`,
      `${file}:10: waves[2].clusters[0]: staging-1 is already in wave canary (waves[1])`,
      `${file}:11: waves[2].selector: and clusters are exclusive; set one`,
    ]);
  }, 60_000);

  it('stops npm run package before packaging when the fleet file is invalid', async () => {
    // Packaged by its path in the repository, so the bad file lives there for the test's duration.
    const bad = `.test-package-bad-${process.pid}.yaml`;
    await writeFile(bad, 'clusters: []\n');
    try {
      const result = await exec('npm', ['run', 'package'], {
        env: { ...process.env, FLEET_CONFIG: bad, npm_config_offline: 'true' },
      }).then(
        ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: error.code ?? -1,
          stdout: error.stdout ?? '',
          stderr: error.stderr ?? '',
        }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${bad}:1: clusters: must list at least one cluster`);
      expect(result.stderr).toContain(`package stopped: ${bad} is invalid`);
      expect(result.stdout).not.toContain('Packaging');
    } finally {
      await rm(bad, { force: true });
    }
  }, 60_000);
});
