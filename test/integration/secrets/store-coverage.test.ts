import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_SECRET_STORES, SECRET_STORES, SERVICE_ACCOUNTS } from '../../../lib/kubernetes/resources.js';
import { serviceAccountAnnotations } from '../../../lib/kubernetes/service-accounts.js';
import { storeCoverage } from '../../../lib/secrets/store-coverage.js';
import { startTestSecretsManager, type TestSecretsManager } from '../../helpers/secrets-manager.js';
import { startTestCluster, type TestCluster } from '../../helpers/simulator.js';

const IRSA = 'arn:aws:iam::111111111111:role/eso-shop';
const DENIED = 'arn:aws:iam::111111111111:role/eso-denied';

const store = (name: string, aws: Record<string, unknown>, namespace = 'shop') => ({
  apiVersion: 'external-secrets.io/v1',
  kind: 'SecretStore',
  metadata: { name, namespace },
  spec: { provider: { aws: { service: 'SecretsManager', region: 'eu-central-1', ...aws } } },
});
const jwt = (name: string) => ({ auth: { jwt: { serviceAccountRef: { name } } } });

describe("the audit's preflight coverage of a cluster's live stores", () => {
  let sm: TestSecretsManager;
  let cluster: TestCluster;
  beforeAll(async () => {
    sm = await startTestSecretsManager({ deniedRoles: [DENIED] });
    cluster = await startTestCluster({ name: 'spoke' });
    const s = cluster.server.store;
    s.create(SERVICE_ACCOUNTS, {
      metadata: { name: 'eso', namespace: 'shop', annotations: { 'eks.amazonaws.com/role-arn': IRSA } },
    });
    s.create(SERVICE_ACCOUNTS, {
      metadata: { name: 'denied', namespace: 'shop', annotations: { 'eks.amazonaws.com/role-arn': DENIED } },
    });
    s.create(SECRET_STORES, store('irsa', jwt('eso')));
    s.create(SECRET_STORES, store('own', {}));
    s.create(SECRET_STORES, store('keys', { auth: { secretRef: {} } }));
    s.create(SECRET_STORES, store('denied', jwt('denied')));
    s.create(SECRET_STORES, {
      ...store('vault', {}),
      spec: { provider: { vault: { server: 'https://vault' } } },
    });
    s.create(CLUSTER_SECRET_STORES, {
      apiVersion: 'external-secrets.io/v1',
      kind: 'ClusterSecretStore',
      metadata: { name: 'shared' },
      spec: { provider: { aws: { service: 'SecretsManager', region: 'eu-central-1', ...jwt('eso') } } },
    });
  });
  afterAll(async () => {
    await sm.close();
    await cluster.close();
  });

  it('counts the AWS stores whose identity the preflight can take on, and says why the rest cannot', async () => {
    const objects = [
      ...(await cluster.api.list(SECRET_STORES)).items,
      ...(await cluster.api.list(CLUSTER_SECRET_STORES)).items,
    ];
    const coverage = await storeCoverage('spoke', objects, {
      identity: { serviceAccount: serviceAccountAnnotations(new Map([['spoke', cluster.api]])) },
      probe: (target) => sm.api.probeIdentity?.(target) ?? Promise.reject(new Error('no probe')),
    });
    expect(coverage.summary).toBe('2 of 5 stores readable');
    expect(coverage.unreadable).toEqual([
      {
        store: 'SecretStore/shop/denied',
        reason: expect.stringContaining(`AssumeRole ${DENIED} failed (AccessDenied)`),
      },
      {
        store: 'SecretStore/shop/keys',
        reason:
          'SecretStore "keys" authenticates with static keys (auth.secretRef), which the preflight never reads',
      },
      {
        store: 'ClusterSecretStore/shared',
        reason: "reads as ServiceAccount eso in each ExternalSecret's namespace: checked at each push",
      },
    ]);
    // The IRSA store's role was really assumed, with nothing read.
    expect(sm.double.requests.filter((r) => r.service === 'secretsmanager')).toEqual([]);
    expect(sm.double.requests.map((r) => r.body.RoleArn)).toContain(IRSA);
  });
});
