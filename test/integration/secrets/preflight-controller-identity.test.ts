import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPodIdentityReader } from '../../../lib/aws/eks-pod-identity.js';
import { preflightIdentity } from '../../../lib/composition/runtime-preflight-identity.js';
import type { Config } from '../../../lib/config.js';
import { DEFAULT_ESO_CONTROLLER } from '../../../lib/fleet/eso-block.js';
import { SERVICE_ACCOUNTS } from '../../../lib/kubernetes/resources.js';
import { serviceAccountAnnotations } from '../../../lib/kubernetes/service-accounts.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { type ControllerCluster, controllerRoles } from '../../../lib/secrets/controller-identity.js';
import { type PreflightInput, preflightApp } from '../../../lib/secrets/preflight.js';
import { storeCoverage } from '../../../lib/secrets/store-coverage.js';
import type { IdentityDeps } from '../../../lib/secrets/store-identity.js';
import { type EksDouble, startEksDouble } from '../../helpers/eks.js';
import {
  BASE_ACCESS_KEY,
  startTestSecretsManager,
  type TestSecretsManager,
} from '../../helpers/secrets-manager.js';
import { startTestCluster, type TestCluster } from '../../helpers/simulator.js';

const REGION = 'eu-central-1';
const IRSA = 'arn:aws:iam::111111111111:role/eso-controller-irsa';
const POD_ROLE = 'arn:aws:iam::111111111111:role/eso-controller-pod';
const STORE_ROLE = 'arn:aws:iam::111111111111:role/eso-shop-reader';
const CLUSTER_ROLE = 'arn:aws:iam::111111111111:role/eso-spoke-preflight';
const DENIED_KEY = 'AKIADENIEDEKS0000000';

/** An ExternalSecret in `shop` reading `key` through a store without `auth`, on fleet cluster `cluster`. */
const input = (cluster: string, key: string, aws: Record<string, unknown> = {}): PreflightInput => ({
  documents: [
    {
      path: 'store.yaml',
      doc: {
        apiVersion: 'external-secrets.io/v1',
        kind: 'SecretStore',
        metadata: { name: 'aws', namespace: 'shop' },
        spec: { provider: { aws: { service: 'SecretsManager', region: REGION, ...aws } } },
      },
    },
    {
      path: 'es.yaml',
      doc: {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name: 'es', namespace: 'shop' },
        spec: { secretStoreRef: { name: 'aws' }, data: [{ secretKey: 'k', remoteRef: { key } }] },
      },
    },
  ],
  clusterStores: [],
  overrides: [],
  policy: 'block',
  namespace: 'shop',
  cluster,
});

const account = (namespace: string, name: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace, annotations },
});

/** Fleet clusters: `irsa` names its ESO ServiceAccount; the others are `auth.eks` at the default one. */
const FLEET: Record<string, ControllerCluster> = {
  irsa: { eso: { namespace: 'eso', serviceAccount: 'eso-controller' } },
  pod: { eso: DEFAULT_ESO_CONTROLLER, eks: { clusterName: 'pod-eks', region: REGION } },
  denied: { eso: DEFAULT_ESO_CONTROLLER, eks: { clusterName: 'denied-eks', region: REGION } },
  none: { eso: DEFAULT_ESO_CONTROLLER, eks: { clusterName: 'none-eks', region: REGION } },
};

describe("stores without auth read with ESO's controller identity (IRSA or EKS Pod Identity)", () => {
  let sm: TestSecretsManager;
  let eks: EksDouble;
  const clusters: Record<string, TestCluster> = {};
  let identity: IdentityDeps;

  beforeAll(async () => {
    sm = await startTestSecretsManager({
      secrets: [
        { name: 'shop/irsa', string: 'x', region: REGION, access: { roles: [IRSA] } },
        { name: 'shop/pod', string: 'x', region: REGION, access: { roles: [POD_ROLE] } },
        { name: 'shop/chained', string: 'x', region: REGION, access: { roles: [STORE_ROLE] } },
        { name: 'shop/spoke', string: 'x', region: REGION, access: { roles: [CLUSTER_ROLE] } },
        { name: 'open/db', string: 'x', region: REGION },
      ],
    });
    eks = await startEksDouble();
    eks.podIdentity.associate({
      cluster: 'pod-eks',
      namespace: 'external-secrets',
      serviceAccount: 'external-secrets',
      roleArn: POD_ROLE,
    });
    // Another ServiceAccount's association on the same cluster must not be taken for ESO's.
    eks.podIdentity.associate({
      cluster: 'pod-eks',
      namespace: 'shop',
      serviceAccount: 'app',
      roleArn: IRSA,
    });
    eks.clusters.set('none-eks', {});
    eks.clusters.set('denied-eks', {});
    for (const name of Object.keys(FLEET)) {
      const cluster = await startTestCluster({ name });
      clusters[name] = cluster;
      const sa =
        name === 'irsa'
          ? account('eso', 'eso-controller', { 'eks.amazonaws.com/role-arn': IRSA })
          : account('external-secrets', 'external-secrets');
      cluster.server.store.create(SERVICE_ACCOUNTS, sa);
    }
    const serviceAccount = serviceAccountAnnotations(
      new Map(Object.entries(clusters).map(([name, c]) => [name, c.api])),
    );
    const reader = createPodIdentityReader({
      endpoint: eks.endpoint,
      credentials: ({ roleArn }) => {
        const accessKeyId = roleArn === undefined ? BASE_ACCESS_KEY : DENIED_KEY;
        return async () => ({ accessKeyId, secretAccessKey: 'local' });
      },
    });
    identity = {
      serviceAccount,
      assumableRoles: ['arn:aws:iam::*:role/eso-*'],
      controllerRole: controllerRoles({
        serviceAccount,
        podIdentity: reader,
        // `denied` asks EKS with a role EKS refuses (its auth.eks.roleArn).
        cluster: (name) =>
          name === 'denied'
            ? {
                eso: DEFAULT_ESO_CONTROLLER,
                eks: { clusterName: 'denied-eks', region: REGION, roleArn: CLUSTER_ROLE },
              }
            : FLEET[name],
      }),
    };
    eks.podIdentity.denied.add(DENIED_KEY);
  });
  afterAll(async () => {
    await sm.close();
    await eks.close();
    for (const cluster of Object.values(clusters)) await cluster.close();
  });

  const run = (preflight: PreflightInput, deps: IdentityDeps = identity) =>
    preflightApp(preflight, { api: sm.api, logger: createMemoryLogger(), identity: deps });
  const since = (before: number) => sm.double.requests.slice(before);

  it("assumes the role in the controller ServiceAccount's IRSA annotation, without asking EKS", async () => {
    const before = sm.double.requests.length;
    const calls = eks.podIdentity.calls.length;
    const result = await run(input('irsa', 'shop/irsa'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([['ok', undefined]]);
    const [assume, read] = since(before);
    expect(assume).toMatchObject({ operation: 'AssumeRole', region: REGION, accessKeyId: BASE_ACCESS_KEY });
    expect(assume?.body.RoleArn).toBe(IRSA);
    expect(sm.double.roleOf(read?.accessKeyId)).toBe(IRSA);
    expect(eks.podIdentity.calls.slice(calls)).toEqual([]);
  });

  it("assumes the role of the controller's Pod Identity association, then the store's own role", async () => {
    const before = sm.double.requests.length;
    const calls = eks.podIdentity.calls.length;
    const result = await run(input('pod', 'shop/pod'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([['ok', undefined]]);
    expect(
      eks.podIdentity.calls.slice(calls).map((c) => [c.operation, c.cluster, c.query, c.region]),
    ).toEqual([
      [
        'ListPodIdentityAssociations',
        'pod-eks',
        { namespace: 'external-secrets', serviceAccount: 'external-secrets' },
        REGION,
      ],
      ['DescribePodIdentityAssociation', 'pod-eks', {}, REGION],
    ]);
    const assume = since(before).find((r) => r.operation === 'AssumeRole');
    expect(assume?.body.RoleArn).toBe(POD_ROLE);

    // Cached for the cold start: the chained store asks EKS nothing more and chains from the same session.
    const next = sm.double.requests.length;
    const chained = await run(input('pod', 'shop/chained', { role: STORE_ROLE }));
    expect(chained.checks.map((c) => c.outcome)).toEqual(['ok']);
    expect(eks.podIdentity.calls.length).toBe(calls + 2);
    const sts = since(next).filter((r) => r.service === 'sts');
    expect(sts.map((r) => r.body.RoleArn)).toEqual([STORE_ROLE]);
    expect(sm.double.roleOf(sts[0]?.accessKeyId)).toBe(POD_ROLE);
  });

  it('falls back to the orchestrator with the reason when EKS refuses, and never says access-denied', async () => {
    const before = sm.double.requests.length;
    const denied = await run(input('denied', 'shop/pod'));
    expect(denied.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        expect.stringMatching(
          /^identity: the orchestrator's own, not ESO's controller's on cluster denied \(eks:ListPodIdentityAssociations on EKS cluster denied-eks in eu-central-1: AccessDeniedException \(allow it to arn:aws:iam::111111111111:role\/eso-spoke-preflight\)\): /,
        ),
      ],
    ]);
    // The read went out with the orchestrator's own identity: no role was assumed.
    expect(since(before).map((r) => [r.operation, r.accessKeyId])).toEqual([
      ['GetSecretValue', BASE_ACCESS_KEY],
    ]);
    // A secret the orchestrator can read is ok, and still says whose identity read it.
    const open = await run(input('denied', 'open/db'));
    expect(open.checks.map((c) => [c.outcome, c.message])).toEqual([
      ['ok', expect.stringContaining("identity: the orchestrator's own, not ESO's controller's")],
    ]);
  });

  it('falls back with the reason when the controller has neither IRSA nor an association', async () => {
    const result = await run(input('none', 'open/db'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'ok',
        "identity: the orchestrator's own, not ESO's controller's on cluster none (ServiceAccount external-secrets/external-secrets has no eks.amazonaws.com/role-arn annotation and no EKS Pod Identity association on none-eks)",
      ],
    ]);
  });

  it('does not block on a secret the stand-in identity cannot find: ESO may read it in another account', async () => {
    const result = await run(input('none', 'shop/not-there-at-all'));
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        expect.stringMatching(
          /^identity: the orchestrator's own, not ESO's controller's on cluster none .*: /,
        ),
      ],
    ]);
  });

  it("lets the cluster's explicit preflightRoleArn win over the discovery", async () => {
    const before = sm.double.requests.length;
    const calls = eks.podIdentity.calls.length;
    // `pod` has a Pod Identity association (POD_ROLE), yet the operator's role is the one read with.
    const explicit = { ...identity, preflightRole: (c: string) => (c === 'pod' ? CLUSTER_ROLE : undefined) };
    const result = await run(input('pod', 'shop/spoke'), explicit);
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([['ok', undefined]]);
    expect(since(before).find((r) => r.operation === 'AssumeRole')?.body.RoleArn).toBe(CLUSTER_ROLE);
    expect(eks.podIdentity.calls.slice(calls)).toEqual([]);
  });

  it("stops waiting for the discovery at the work item's time budget and says so", async () => {
    const hung = {
      ...identity,
      controllerRole: () => new Promise<never>(() => {}),
      deadlineMs: Date.now() + 50,
    };
    const result = await run(input('pod', 'shop/pod'), hung);
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([
      [
        'unchecked',
        expect.stringContaining(
          "identity: the orchestrator's own, not ESO's controller's on cluster pod (the work item's time budget ran out first): ",
        ),
      ],
    ]);
  });

  it('is wired at run time for auth.eks clusters (EKS_ENDPOINT), and not for token clusters without eso', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', BASE_ACCESS_KEY);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    try {
      const deps = preflightIdentity({
        clients: new Map([
          ['pod', clusters.pod?.api],
          ['irsa', clusters.irsa?.api],
        ]) as never,
        fleetConfig: {
          clusters: [
            { name: 'pod', server: 'https://pod', auth: { eks: { clusterName: 'pod-eks', region: REGION } } },
            // Its controller has an IRSA annotation, but the cluster neither says where ESO runs nor is EKS.
            { name: 'irsa', server: 'https://irsa', auth: { token: 't' } },
          ],
          repositories: [],
          secretPolicy: 'block',
          secretStores: [],
        },
        config: {
          eksEndpoint: eks.endpoint,
          awsRequestTimeoutMs: 2_000,
          awsConnectTimeoutMs: 1_000,
        } as Config,
      });
      const calls = eks.podIdentity.calls.length;
      const pod = await run(input('pod', 'shop/pod'), deps);
      expect(pod.checks.map((c) => [c.outcome, c.message])).toEqual([['ok', undefined]]);
      expect(eks.podIdentity.calls.slice(calls).map((c) => [c.operation, c.accessKeyId])).toEqual([
        ['ListPodIdentityAssociations', BASE_ACCESS_KEY],
        ['DescribePodIdentityAssociation', BASE_ACCESS_KEY],
      ]);
      const token = await run(input('irsa', 'shop/irsa'), deps);
      expect(token.checks.map((c) => c.outcome)).toEqual(['access-denied']);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('leaves a cluster the discovery does not apply to as before: the orchestrator, no note', async () => {
    const result = await run({ ...input('irsa', 'open/db'), cluster: 'elsewhere' });
    expect(result.checks.map((c) => [c.outcome, c.message])).toEqual([['ok', undefined]]);
  });

  it("counts coverage with the controller's identity: discovered roles readable, a failed discovery not", async () => {
    const store = (name: string) => ({
      apiVersion: 'external-secrets.io/v1',
      kind: 'SecretStore',
      metadata: { name, namespace: 'shop' },
      spec: { provider: { aws: { service: 'SecretsManager', region: REGION } } },
    });
    const probe = (target: Parameters<NonNullable<typeof sm.api.probeIdentity>>[0]) =>
      sm.api.probeIdentity?.(target) ?? Promise.reject(new Error('no probe'));
    const pod = await storeCoverage('pod', [store('own')], { identity, probe });
    expect([pod.summary, pod.unreadable]).toEqual(['1 of 1 store readable', []]);
    const denied = await storeCoverage('denied', [store('own')], { identity, probe });
    expect(denied.summary).toBe('0 of 1 store readable');
    expect(denied.unreadable).toEqual([
      {
        store: 'SecretStore/shop/own',
        reason: expect.stringContaining('eks:ListPodIdentityAssociations on EKS cluster denied-eks'),
      },
    ]);
  });
});

describe('the Pod Identity lookup is bounded', () => {
  it('gives up on a hung EKS within its timeout and says so', async () => {
    const eks = await startEksDouble();
    eks.hang = true;
    try {
      const reader = createPodIdentityReader({
        endpoint: eks.endpoint,
        credentials: () => async () => ({ accessKeyId: BASE_ACCESS_KEY, secretAccessKey: 'local' }),
        timeoutMs: 200,
      });
      await expect(
        reader({ clusterName: 'c', region: REGION, namespace: 'external-secrets', serviceAccount: 'x' }),
      ).rejects.toThrow(
        'eks:ListPodIdentityAssociations on EKS cluster c in eu-central-1: no answer within 200 ms',
      );
    } finally {
      await eks.close();
    }
  });

  it('names a cluster EKS does not know', async () => {
    const eks = await startEksDouble();
    try {
      const reader = createPodIdentityReader({
        endpoint: eks.endpoint,
        credentials: () => async () => ({ accessKeyId: BASE_ACCESS_KEY, secretAccessKey: 'local' }),
      });
      await expect(
        reader({ clusterName: 'ghost', region: REGION, namespace: 'n', serviceAccount: 's' }),
      ).rejects.toThrow('no such cluster (check auth.eks.clusterName and region)');
    } finally {
      await eks.close();
    }
  });
});
