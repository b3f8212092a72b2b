import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetTextReader } from '../../../lib/aws/fleet-text.js';
import { validateFleetPath } from '../../../lib/cli/validate.js';
import { loadConfig } from '../../../lib/config.js';
import { createFleetSource } from '../../../lib/fleet/fleet-source.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import { type FleetStoreDouble, startS3Double, startSsmDouble } from '../../helpers/fleet-store-doubles.js';

const fleet = (name: string) =>
  `clusters:\n  - name: ${name}\n    server: https://${name}.example:6443\n    auth: { tokenSecret: gitops-sync/${name} }\n`;

let ssm: Awaited<ReturnType<typeof startSsmDouble>>;
let s3: Awaited<ReturnType<typeof startS3Double>>;
const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  // Fake credentials: the SDK signs with them; the doubles only check that a signature is there.
  process.env.AWS_ACCESS_KEY_ID = 'AKIDFLEETTEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'fleet-test-secret';
  [ssm, s3] = await Promise.all([startSsmDouble(), startS3Double()]);
});

afterAll(async () => {
  await Promise.all([ssm.close(), s3.close()]);
  process.env.AWS_ACCESS_KEY_ID = saved.id;
  process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
});

function sourceFor(env: Record<string, string>, options: { mode?: 'local' | 'deployed' } = {}) {
  const config = loadConfig({
    TABLE_NAME: 't',
    AWS_REGION: 'eu-west-1',
    SSM_ENDPOINT: ssm.endpoint,
    S3_ENDPOINT: s3.endpoint,
    ...env,
  });
  const lines: LogLine[] = [];
  let now = Date.parse('2026-12-01T10:00:00Z');
  const source = createFleetSource(config, {
    clock: { now: () => new Date(now) },
    logger: createMemoryLogger(lines),
    mode: options.mode ?? 'deployed',
    readRemote: createFleetTextReader({
      region: config.region,
      ...(config.ssmEndpoint === undefined ? {} : { ssmEndpoint: config.ssmEndpoint }),
      ...(config.s3Endpoint === undefined ? {} : { s3Endpoint: config.s3Endpoint }),
    }),
  });
  return { source, lines, advance: (seconds: number) => (now += seconds * 1000) };
}

const gets = (double: FleetStoreDouble) => double.requests.length;

describe('FLEET_SOURCE', () => {
  it('reads an SSM SecureString parameter with decryption, signed, and validates it', async () => {
    ssm.put('/gitops-sync/prod/fleet', fleet('hub'), { secure: true });
    const { source } = sourceFor({ FLEET_SOURCE: 'ssm:/gitops-sync/prod/fleet' });
    const current = await source.current();
    expect(current.clusters.map((c) => c.name)).toEqual(['hub']);
    const request = ssm.requests.at(-1);
    expect(request).toMatchObject({ operation: 'GetParameter', signed: true });
    expect(request?.body).toEqual({ Name: '/gitops-sync/prod/fleet', WithDecryption: true });
  });

  it('serves the cached fleet within the TTL and re-reads it after, keeping the object when unchanged', async () => {
    ssm.put('/ttl/fleet', fleet('hub'));
    const { source, advance } = sourceFor({ FLEET_SOURCE: 'ssm:/ttl/fleet', FLEET_TTL_SECONDS: '60' });
    const first = await source.current();
    const before = gets(ssm);
    advance(59);
    expect(await source.current()).toBe(first);
    expect(gets(ssm)).toBe(before);
    advance(1);
    expect(await source.current()).toBe(first);
    expect(gets(ssm)).toBe(before + 1);
    ssm.put('/ttl/fleet', fleet('spoke'));
    advance(60);
    const changed = await source.current();
    expect(changed).not.toBe(first);
    expect(changed.clusters.map((c) => c.name)).toEqual(['spoke']);
  });

  it('keeps the last valid fleet when a re-read is invalid, logging every problem', async () => {
    ssm.put('/bad/fleet', fleet('hub'));
    const { source, lines, advance } = sourceFor({ FLEET_SOURCE: 'ssm:/bad/fleet' });
    const good = await source.current();
    ssm.put('/bad/fleet', 'clusters:\n  - name: Hub\n    sever: https://x.example\n');
    advance(60);
    expect(await source.current()).toBe(good);
    const logged = lines.find((l) => l.message === 'fleet is invalid');
    expect(logged?.level).toBe('error');
    expect(logged?.fields).toMatchObject({ source: 'ssm:/bad/fleet', keeping: 'the last valid fleet' });
    expect(logged?.fields.problems).toEqual([
      'ssm:/bad/fleet:2: clusters[0].name: must be a DNS label (lowercase letters, digits and "-", at most 63)',
      'ssm:/bad/fleet:2: clusters[0].server: is required',
      'ssm:/bad/fleet:2: clusters[0].auth: is required',
      'ssm:/bad/fleet:3: clusters[0].sever: unknown field (did you mean "server"?)',
    ]);
  });

  it('rejects with every problem while there has never been a valid fleet (deployed rules)', async () => {
    ssm.put(
      '/local-only/fleet',
      'clusters:\n  - name: lab\n    server: http://127.0.0.1:1\n    auth: { token: t }\n',
    );
    const { source } = sourceFor({ FLEET_SOURCE: 'ssm:/local-only/fleet' });
    await expect(source.current()).rejects.toThrow(
      'ssm:/local-only/fleet:3: clusters[0].server: plain http:// is only for the local stack',
    );
    const local = sourceFor({ FLEET_SOURCE: 'ssm:/local-only/fleet' }, { mode: 'local' });
    expect((await local.source.current()).clusters).toHaveLength(1);
  });

  it('reads an S3 object (path-style against the endpoint override), signed', async () => {
    s3.put('fleets', 'prod/fleet.yaml', fleet('eks-prod'));
    const { source } = sourceFor({ FLEET_SOURCE: 's3://fleets/prod/fleet.yaml' });
    expect((await source.current()).clusters.map((c) => c.name)).toEqual(['eks-prod']);
    expect(s3.requests.at(-1)).toEqual({ operation: 'GET /fleets/prod/fleet.yaml', body: {}, signed: true });
  });

  it('names a missing object or parameter by its error code, and reads again after the TTL', async () => {
    const { source, lines, advance } = sourceFor({ FLEET_SOURCE: 's3://fleets/missing.yaml' });
    await expect(source.current()).rejects.toThrow(
      's3://fleets/missing.yaml: cannot be read (NoSuchKey, HTTP 404)',
    );
    expect(lines.some((l) => l.message === 'fleet is unreadable' && l.level === 'error')).toBe(true);
    s3.put('fleets', 'missing.yaml', fleet('late'));
    await expect(source.current()).rejects.toThrow('NoSuchKey');
    advance(60);
    expect((await source.current()).clusters.map((c) => c.name)).toEqual(['late']);
    const missing = sourceFor({ FLEET_SOURCE: 'ssm:/nowhere' });
    await expect(missing.source.current()).rejects.toThrow(
      'ssm:/nowhere: cannot be read (ParameterNotFound, HTTP 400)',
    );
  });
});

describe('gitops-sync validate ssm:/... and s3://...', () => {
  it('validates the fleet where the functions read it, with the deployed rules', async () => {
    ssm.put('/cli/fleet', fleet('hub'));
    s3.put(
      'fleets',
      'cli/bad.yaml',
      'clusters:\n  - name: hub\n    server: http://hub.example\n    auth: { token: t }\n',
    );
    const env = { AWS_REGION: 'eu-west-1', SSM_ENDPOINT: ssm.endpoint, S3_ENDPOINT: s3.endpoint };
    expect(await validateFleetPath('ssm:/cli/fleet', 'deployed', env)).toEqual({
      ok: true,
      lines: ['ssm:/cli/fleet: valid (1 cluster, 0 repositories)'],
    });
    expect(await validateFleetPath('s3://fleets/cli/bad.yaml', 'deployed', env)).toEqual({
      ok: false,
      lines: [
        's3://fleets/cli/bad.yaml:3: clusters[0].server: plain http:// is only for the local stack (validate --local); use https://',
        's3://fleets/cli/bad.yaml:4: clusters[0].auth.token: a literal token is only for the local stack (validate --local); use tokenSecret',
      ],
    });
    expect(await validateFleetPath('ssm:/cli/none', 'deployed', env)).toEqual({
      ok: false,
      lines: ['ssm:/cli/none: cannot be read (ParameterNotFound)'],
    });
    expect((await validateFleetPath('s3://x', 'deployed', env)).lines).toEqual([
      's3://x: cannot be read (FLEET_SOURCE: must be ssm:/path/to/parameter or s3://bucket/key)',
    ]);
  });
});
