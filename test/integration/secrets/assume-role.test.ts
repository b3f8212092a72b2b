import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../lib/logger.js';
import { type PreflightInput, preflightApp } from '../../../lib/secrets/preflight.js';
import {
  BASE_ACCESS_KEY,
  startTestSecretsManager,
  type TestSecretsManager,
} from '../../helpers/secrets-manager.js';

const ROLE = 'arn:aws:iam::111111111111:role/eso-reader';
const HOP = 'arn:aws:iam::111111111111:role/hop';
const DENIED = 'arn:aws:iam::111111111111:role/nope';

const input = (aws: Record<string, unknown>, keys: string[]): PreflightInput => ({
  documents: [
    {
      path: 'store.yaml',
      doc: {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ClusterSecretStore',
        metadata: { name: 'aws' },
        spec: { provider: { aws: { service: 'SecretsManager', region: 'eu-central-1', ...aws } } },
      },
    },
    {
      path: 'es.yaml',
      doc: {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name: 'es', namespace: 'shop' },
        spec: {
          secretStoreRef: { name: 'aws', kind: 'ClusterSecretStore' },
          data: keys.map((key, i) => ({ secretKey: `k${i}`, remoteRef: { key } })),
        },
      },
    },
  ],
  clusterStores: [],
  overrides: [],
  policy: 'block',
  namespace: 'shop',
});

describe('a store role is assumed through STS over the wire', () => {
  let sm: TestSecretsManager;
  beforeAll(async () => {
    sm = await startTestSecretsManager({
      secrets: [
        { name: 'role-only', string: 'x', access: { roles: [ROLE] } },
        { name: 'role-only-2', string: 'y', access: { roles: [ROLE] } },
      ],
      deniedRoles: [DENIED],
    });
  });
  afterAll(async () => {
    await sm.close();
  });

  it('reads with the assumed role, chained after additionalRoles, with the external id on the last role', async () => {
    const before = sm.double.requests.length;
    const result = await preflightApp(
      input({ role: ROLE, additionalRoles: [HOP], externalID: 'ext-1' }, ['role-only']),
      {
        api: sm.api,
        logger: createMemoryLogger(),
      },
    );
    expect(result.checks[0]?.outcome).toBe('ok');
    const requests = sm.double.requests.slice(before);
    const sts = requests.filter((r) => r.service === 'sts');
    expect(sts.map((r) => [r.body.RoleArn, r.body.ExternalId])).toEqual([
      [HOP, undefined],
      [ROLE, 'ext-1'],
    ]);
    // The first hop is signed with the base identity, the second with the hop's credentials.
    expect(sts[0]?.accessKeyId).toBe(BASE_ACCESS_KEY);
    expect(sm.double.roleOf(sts[1]?.accessKeyId)).toBe(HOP);
    const read = requests.find((r) => r.service === 'secretsmanager');
    expect(read?.region).toBe('eu-central-1');
    expect(sm.double.roleOf(read?.accessKeyId)).toBe(ROLE);
  });

  it('assumes a role once and reuses the cached credentials', async () => {
    const before = sm.double.requests.length;
    const api = sm.api;
    await preflightApp(input({ role: ROLE }, ['role-only']), { api, logger: createMemoryLogger() });
    await preflightApp(input({ role: ROLE }, ['role-only-2']), { api, logger: createMemoryLogger() });
    const requests = sm.double.requests.slice(before);
    expect(requests.filter((r) => r.operation === 'AssumeRole')).toHaveLength(1);
    expect(requests.filter((r) => r.operation === 'GetSecretValue')).toHaveLength(2);
  });

  it('is access-denied without the role the secret requires', async () => {
    const result = await preflightApp(input({}, ['role-only']), {
      api: sm.api,
      logger: createMemoryLogger(),
    });
    expect(result.checks[0]?.outcome).toBe('access-denied');
  });

  it('is unchecked, not access-denied, when STS refuses the role, naming it', async () => {
    const result = await preflightApp(input({ role: DENIED }, ['role-only', 'role-only-2']), {
      api: sm.api,
      logger: createMemoryLogger(),
    });
    expect(result.checks.map((c) => c.outcome)).toEqual(['unchecked', 'unchecked']);
    expect(result.checks[0]?.message).toContain(`AssumeRole ${DENIED}`);
    expect(result.verdict).toBe('warn');
  });
});

describe('assumeRoleCredentials', () => {
  it('assumes the role again once the cached credentials are within five minutes of expiry', async () => {
    const { assumeRoleCredentials } = await import('../../../lib/aws/credentials.js');
    const { startLocalSecretsManager } = await import('../../../infra/local/secrets-manager.js');
    const double = await startLocalSecretsManager();
    let now = new Date('2026-01-01T00:00:00Z');
    const credentials = assumeRoleCredentials({
      parent: { accessKeyId: BASE_ACCESS_KEY, secretAccessKey: 'x' },
      roleArn: ROLE,
      region: 'eu-west-1',
      stsEndpoint: double.endpoint,
      clock: { now: () => now },
    });
    try {
      const [first, second] = await Promise.all([credentials(), credentials()]);
      expect(second).toBe(first);
      expect(double.count('AssumeRole')).toBe(1);
      const expiration = first?.expiration ?? new Date(0);
      now = new Date(expiration.getTime() - 4 * 60 * 1000);
      const renewed = await credentials();
      expect(double.count('AssumeRole')).toBe(2);
      expect(renewed.accessKeyId).not.toBe(first?.accessKeyId);
    } finally {
      credentials.destroy();
      await double.close();
    }
  });
});
