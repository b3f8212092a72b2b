import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_ACCOUNTS } from '../../../lib/kubernetes/resources.js';
import { serviceAccountAnnotations } from '../../../lib/kubernetes/service-accounts.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { type PreflightInput, preflightApp } from '../../../lib/secrets/preflight.js';
import type { IdentityDeps } from '../../../lib/secrets/store-identity.js';
import {
  BASE_ACCESS_KEY,
  startTestSecretsManager,
  type TestSecretsManager,
} from '../../helpers/secrets-manager.js';
import { startTestCluster, type TestCluster } from '../../helpers/simulator.js';

const IRSA = 'arn:aws:iam::111111111111:role/eso-shop';
const STORE_ROLE = 'arn:aws:iam::111111111111:role/eso-shop-reader';
const OTHER_ACCOUNT = 'arn:aws:iam::222222222222:role/eso-payments';
const CLUSTER_ROLE = 'arn:aws:iam::111111111111:role/eso-spoke-preflight';
const DENIED = 'arn:aws:iam::111111111111:role/eso-denied';
const REGION = 'eu-central-1';
const PATTERNS = ['arn:aws:iam::*:role/eso-*'];

type Aws = Record<string, unknown>;
const jwt = (name: string, namespace?: string) => ({
  auth: { jwt: { serviceAccountRef: { name, ...(namespace ? { namespace } : {}) } } },
});

/** One ExternalSecret in `shop` reading `key` through a store with these `provider.aws` fields. */
const input = (aws: Aws, key: string, kind = 'SecretStore'): PreflightInput => ({
  documents: [
    {
      path: 'store.yaml',
      doc: {
        apiVersion: 'external-secrets.io/v1',
        kind,
        metadata: { name: 'aws', ...(kind === 'SecretStore' ? { namespace: 'shop' } : {}) },
        spec: { provider: { aws: { service: 'SecretsManager', region: REGION, ...aws } } },
      },
    },
    {
      path: 'es.yaml',
      doc: {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name: 'es', namespace: 'shop' },
        spec: { secretStoreRef: { name: 'aws', kind }, data: [{ secretKey: 'k', remoteRef: { key } }] },
      },
    },
  ],
  clusterStores: [],
  overrides: [],
  policy: 'block',
  namespace: 'shop',
  cluster: 'spoke',
});

const account = (namespace: string, name: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace, annotations },
});

describe('the preflight reads with the identity ESO would, over STS, Secrets Manager and Kubernetes', () => {
  let sm: TestSecretsManager;
  let cluster: TestCluster;
  let identity: IdentityDeps;

  beforeAll(async () => {
    sm = await startTestSecretsManager({
      secrets: [
        // Exists only in the store's region, and only the named roles may read it.
        { name: 'shop/db', string: 'x', region: REGION, access: { roles: [IRSA] } },
        { name: 'shop/chained', string: 'x', region: REGION, access: { roles: [STORE_ROLE] } },
        { name: 'payments/db', string: 'x', region: REGION, access: { roles: [OTHER_ACCOUNT] } },
        { name: 'spoke/db', string: 'x', region: REGION, access: { roles: [CLUSTER_ROLE] } },
        { name: 'open/db', string: 'x', region: REGION },
      ],
      deniedRoles: [DENIED],
    });
    cluster = await startTestCluster({ name: 'spoke' });
    const store = cluster.server.store;
    store.create(SERVICE_ACCOUNTS, account('shop', 'eso', { 'eks.amazonaws.com/role-arn': IRSA }));
    store.create(SERVICE_ACCOUNTS, account('shop', 'denied', { 'eks.amazonaws.com/role-arn': DENIED }));
    store.create(SERVICE_ACCOUNTS, account('shop', 'plain'));
    store.create(
      SERVICE_ACCOUNTS,
      account('shop', 'outside', { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111111111111:role/team-x' }),
    );
    store.create(
      SERVICE_ACCOUNTS,
      account('payments', 'eso', { 'eks.amazonaws.com/role-arn': OTHER_ACCOUNT }),
    );
    identity = {
      serviceAccount: serviceAccountAnnotations(new Map([['spoke', cluster.api]])),
      assumableRoles: PATTERNS,
    };
  });
  afterAll(async () => {
    await sm.close();
    await cluster.close();
  });

  const run = (preflight: PreflightInput, deps: IdentityDeps = identity) =>
    preflightApp(preflight, { api: sm.api, logger: createMemoryLogger(), identity: deps });
  const since = (before: number) => sm.double.requests.slice(before);

  it("assumes the ServiceAccount's IRSA role in the store's region and reads with its credentials", async () => {
    const before = sm.double.requests.length;
    const result = await run(input(jwt('eso'), 'shop/db'));
    expect(result.checks.map((c) => c.outcome)).toEqual(['ok']);
    const [assume, read, ...rest] = since(before);
    expect(rest).toEqual([]);
    expect(assume).toMatchObject({ service: 'sts', operation: 'AssumeRole', region: REGION });
    expect(assume?.body.RoleArn).toBe(IRSA);
    expect(assume?.accessKeyId).toBe(BASE_ACCESS_KEY);
    expect(read).toMatchObject({ service: 'secretsmanager', operation: 'GetSecretValue', region: REGION });
    expect(sm.double.roleOf(read?.accessKeyId)).toBe(IRSA);
  });

  it('finds nothing when the store names another region: the double serves each region apart', async () => {
    const result = await run(input({ ...jwt('eso'), region: 'us-east-1' }, 'shop/db'));
    expect(result.checks.map((c) => c.outcome)).toEqual(['missing-secret']);
  });

  it("chains the store's role (external id, session tags) after the IRSA role, as ESO does", async () => {
    const before = sm.double.requests.length;
    const aws = {
      ...jwt('eso'),
      role: STORE_ROLE,
      externalID: 'ext-1',
      sessionTags: [{ key: 'team', value: 'shop' }],
    };
    const result = await run(input(aws, 'shop/chained'));
    expect(result.checks.map((c) => c.outcome)).toEqual(['ok']);
    const sts = since(before).filter((r) => r.service === 'sts');
    // The IRSA session is cached from the test above; only the store role is assumed, signed with it.
    expect(sts.map((r) => [r.body.RoleArn, r.body.ExternalId, r.body['Tags.member.1.Key']])).toEqual([
      [STORE_ROLE, 'ext-1', 'team'],
    ]);
    expect(sm.double.roleOf(sts[0]?.accessKeyId)).toBe(IRSA);
    const read = since(before).find((r) => r.service === 'secretsmanager');
    expect(sm.double.roleOf(read?.accessKeyId)).toBe(STORE_ROLE);
  });

  it('reads a ClusterSecretStore ServiceAccount in the namespace its ref names, in another account', async () => {
    const before = sm.double.requests.length;
    const result = await run(input(jwt('eso', 'payments'), 'payments/db', 'ClusterSecretStore'));
    expect(result.checks.map((c) => c.outcome)).toEqual(['ok']);
    const assume = since(before).find((r) => r.operation === 'AssumeRole');
    expect(assume?.body.RoleArn).toBe(OTHER_ACCOUNT);
  });

  it('is unchecked, not access-denied, when STS refuses the IRSA role, and reads nothing', async () => {
    const before = sm.double.requests.length;
    const result = await run(input(jwt('denied'), 'shop/db'));
    expect(result.checks.map((c) => c.outcome)).toEqual(['unchecked']);
    expect(result.checks[0]?.message).toContain(`AssumeRole ${DENIED} failed (AccessDenied)`);
    expect(since(before).filter((r) => r.service === 'secretsmanager')).toEqual([]);
  });

  it('is unchecked without an STS call when a role lies outside PREFLIGHT_ASSUMABLE_ROLES', async () => {
    const before = sm.double.requests.length;
    const result = await run(input(jwt('outside'), 'shop/db'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        expect.stringContaining(
          'role arn:aws:iam::111111111111:role/team-x is outside PREFLIGHT_ASSUMABLE_ROLES',
        ),
      ],
    ]);
    expect(since(before)).toEqual([]);
  });

  it('is unchecked, naming it, when the ServiceAccount does not exist', async () => {
    const result = await run(input(jwt('ghost'), 'shop/db'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        'ServiceAccount shop/ghost not found on cluster spoke (ESO cannot read with SecretStore "aws" until it exists)',
      ],
    ]);
  });

  it("gives ESO's error for a ServiceAccount without the IRSA annotation (Pod Identity cannot serve it)", async () => {
    const result = await run(input(jwt('plain'), 'shop/db'));
    expect(result.checks[0]?.outcome).toBe('error');
    expect(result.checks[0]?.message).toContain(
      'an IAM role must be associated with service account plain (namespace: shop)',
    );
  });

  it('never reads static keys: auth.secretRef is unchecked and nothing is called', async () => {
    const before = sm.double.requests.length;
    const aws = { auth: { secretRef: { accessKeyIDSecretRef: { name: 'k', key: 'id' } } } };
    const result = await run(input(aws, 'open/db'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        'SecretStore "aws" authenticates with static keys (auth.secretRef), which the preflight never reads',
      ],
    ]);
    expect(since(before)).toEqual([]);
  });

  it("reads a store without auth with the cluster's preflightRoleArn, else the orchestrator's own", async () => {
    const before = sm.double.requests.length;
    const withRole = await run(input({}, 'spoke/db'), { ...identity, preflightRole: () => CLUSTER_ROLE });
    expect(withRole.checks.map((c) => c.outcome)).toEqual(['ok']);
    const assume = since(before).find((r) => r.operation === 'AssumeRole');
    expect(assume?.body.RoleArn).toBe(CLUSTER_ROLE);

    const next = sm.double.requests.length;
    const plain = await run(input({}, 'open/db'));
    expect(plain.checks.map((c) => c.outcome)).toEqual(['ok']);
    expect(since(next).map((r) => [r.operation, r.accessKeyId])).toEqual([
      ['GetSecretValue', BASE_ACCESS_KEY],
    ]);
  });

  it("is unchecked when the ServiceAccount read outlasts the work item's time budget", async () => {
    const hung = {
      ...identity,
      serviceAccount: () => new Promise<never>(() => {}),
      deadlineMs: Date.now() + 50,
    };
    const result = await run(input(jwt('eso'), 'shop/db'), hung);
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        "ServiceAccount shop/eso on cluster spoke could not be read: the work item's time budget ran out first",
      ],
    ]);
  });

  it('is unchecked when the destination cluster is not in the fleet', async () => {
    const result = await run(input(jwt('eso'), 'shop/db'), {});
    expect(result.checks[0]?.outcome).toBe('unchecked');
    expect(result.checks[0]?.message).toContain('not in the fleet');
  });
});

describe('a slow STS', () => {
  it('leaves the read unchecked once the AssumeRole bound passes, instead of hanging the preflight', async () => {
    const sm = await startTestSecretsManager({
      secrets: [{ name: 'shop/db', string: 'x', access: { roles: [IRSA] } }],
      stsDelayMs: 3_000,
      assumeTimeoutMs: 200,
    });
    try {
      const result = await preflightApp(input({ role: IRSA }, 'shop/db'), {
        api: sm.api,
        logger: createMemoryLogger(),
      });
      expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
        ['unchecked', `AssumeRole ${IRSA} failed (Timeout): no answer within 200 ms`],
      ]);
      expect(sm.double.requests.filter((r) => r.service === 'secretsmanager')).toEqual([]);
    } finally {
      await sm.close();
    }
  });
});
