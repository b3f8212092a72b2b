import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type KubeApiServer, startKubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import type { ClusterConfig, FleetConfig } from '../../../lib/fleet/fleet-config.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { type ClusterClientDeps, createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { createEksToken } from '../../../lib/kubernetes/eks-token.js';
import { KubernetesApiError } from '../../../lib/kubernetes/kube-error.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { readArgoClusters } from '../../../lib/reconcile/read-clusters.js';
import { type EksDouble, startEksDouble } from '../../helpers/eks.js';
import { ADMIN_TOKEN, application } from '../../helpers/simulator.js';

// A test-only CA and the API server certificate it signed (127.0.0.1), valid until 2126.
const CA_PEM = readFileSync('test/fixtures/tls/ca.pem', 'utf8');
const CA_DATA = Buffer.from(CA_PEM).toString('base64');
const TLS = {
  cert: readFileSync('test/fixtures/tls/server.pem', 'utf8'),
  key: readFileSync('test/fixtures/tls/server.key', 'utf8'),
};

const NOW = new Date('2026-05-06T07:08:09Z');
const OWN = { accessKeyId: 'AKIAOWNROLE000000000', secretAccessKey: 'own-secret-key' };
const ASSUMED = { accessKeyId: 'ASIAACCESSROLE000000', secretAccessKey: 'assumed-secret-key' };
const ROLE = 'arn:aws:iam::123456789012:role/gitops-sync-dev-access-hub';

let eks: EksDouble;
let kube: KubeApiServer;

beforeAll(async () => {
  eks = await startEksDouble();
  kube = await startKubeApiServer({ tls: TLS, tokens: { [ADMIN_TOKEN]: { user: 'admin' } } });
  kube.store.create(APPLICATIONS, application('web'));
  for (const credentials of [OWN, ASSUMED]) {
    const token = await createEksToken({ clusterName: 'hub-eu', region: 'eu-west-1', credentials, now: NOW });
    kube.access.set(token, { user: credentials.accessKeyId });
  }
});

afterAll(async () => {
  await kube.close();
  await eks.close();
});

beforeEach(() => {
  eks.clusters.clear();
  eks.calls.length = 0;
  eks.hang = false;
});

const hub = (extra: Partial<ClusterConfig> = {}, roleArn?: string): ClusterConfig => ({
  name: 'hub',
  auth: {
    eks: { clusterName: 'hub-eu', region: 'eu-west-1', ...(roleArn === undefined ? {} : { roleArn }) },
  },
  argocd: { namespace: 'argocd' },
  ...extra,
});

const fleetOf = (...clusters: ClusterConfig[]): FleetConfig => ({
  clusters,
  repositories: [],
  secretPolicy: 'block',
  secretStores: [],
});

function clientsFor(fleet: FleetConfig, deps: Partial<ClusterClientDeps> = {}) {
  return createClusterClients(fleet, {
    secrets: { getSecretString: () => Promise.reject(new Error('no secrets here')) },
    clock: { now: () => NOW },
    awsCredentials:
      ({ roleArn }) =>
      async () =>
        roleArn === undefined ? OWN : ASSUMED,
    eks: { endpoint: eks.endpoint, http: { requestTimeoutMs: 300 } },
    retry: false,
    ...deps,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<KubernetesApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KubernetesApiError);
  return error as KubernetesApiError;
}

describe('auth.eks without server and caData: DescribeCluster', () => {
  it('reaches the API server over TLS with the endpoint and the CA DescribeCluster gives', async () => {
    eks.clusters.set('hub-eu', { endpoint: kube.url, caData: CA_DATA });
    const api = clientsFor(fleetOf(hub())).get('hub') as ClusterApi;
    expect((await api.list(APPLICATIONS, 'argocd')).items.map((a) => a.metadata.name)).toEqual(['web']);
    expect(eks.calls).toEqual([{ name: 'hub-eu', region: 'eu-west-1', accessKeyId: OWN.accessKeyId }]);
  });

  it('fails certificate verification, naming it, when DescribeCluster gives no CA', async () => {
    eks.clusters.set('hub-eu', { endpoint: kube.url });
    const api = clientsFor(fleetOf(hub())).get('hub') as ClusterApi;
    const failure = await failureOf(api.list(APPLICATIONS, 'argocd'));
    expect(failure.message).toMatch(
      /^cluster hub: list applications\.argoproj\.io argocd: the API server's certificate is not trusted \([A-Z_]+\); set caData to the cluster's CA$/,
    );
    expect(failure.retryable).toBe(false);
  });

  it('asks DescribeCluster once per cold start, not per call', async () => {
    eks.clusters.set('hub-eu', { endpoint: kube.url, caData: CA_DATA });
    const api = clientsFor(fleetOf(hub())).get('hub') as ClusterApi;
    await api.list(APPLICATIONS, 'argocd');
    await api.get(APPLICATIONS, 'argocd', 'web');
    await api.list(APPLICATIONS, 'argocd');
    expect(eks.calls).toHaveLength(1);
  });

  it("asks it with the cluster's roleArn when one is given", async () => {
    eks.clusters.set('hub-eu', { endpoint: kube.url, caData: CA_DATA, allowed: [ASSUMED.accessKeyId] });
    const api = clientsFor(fleetOf(hub({}, ROLE))).get('hub') as ClusterApi;
    expect((await api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
    expect(eks.calls.map((c) => c.accessKeyId)).toEqual([ASSUMED.accessKeyId]);
  });

  it('fills in only what the fleet leaves out: a given server keeps its URL, the CA comes from EKS', async () => {
    eks.clusters.set('hub-eu', { endpoint: 'https://unused.example', caData: CA_DATA });
    const api = clientsFor(fleetOf(hub({ server: kube.url }))).get('hub') as ClusterApi;
    expect((await api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
    expect(eks.calls).toHaveLength(1);
  });

  it('never asks for a cluster whose server and caData are both given', async () => {
    const api = clientsFor(fleetOf(hub({ server: kube.url, caData: CA_DATA }))).get('hub') as ClusterApi;
    expect((await api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
    expect(eks.calls).toEqual([]);
  });
});

describe('DescribeCluster faults: that cluster is unreadable with the reason, the others proceed', () => {
  // A token cluster on the same API server double: what a cluster not behind DescribeCluster sees.
  const spoke = (): ClusterConfig => ({
    name: 'spoke',
    server: kube.url,
    caData: CA_DATA,
    auth: { token: ADMIN_TOKEN },
    argocd: { namespace: 'argocd' },
  });
  const read = (fleet: FleetConfig, deps: Partial<ClusterClientDeps> = {}) =>
    readArgoClusters(
      fleet,
      clientsFor(fleet, deps),
      { concurrency: 2, readAppProjects: false },
      async ({ pages }) => {
        let n = 0;
        for await (const page of pages) n += page.items.length;
        return n;
      },
    );

  it('access denied: names the permission to grant and to whom; the token cluster is still read', async () => {
    eks.clusters.set('hub-eu', { endpoint: kube.url, caData: CA_DATA, allowed: ['someone-else'] });
    const result = await read(fleetOf(hub(), spoke()));
    expect(result.read).toEqual([{ cluster: 'spoke', value: 1 }]);
    expect(result.unread).toEqual([
      {
        name: 'hub',
        error:
          "cluster hub: list applications.argoproj.io argocd: eks DescribeCluster hub-eu in eu-west-1: AccessDeniedException — allow eks:DescribeCluster on arn:aws:eks:eu-west-1:<account>:cluster/hub-eu to the function's role, or set server and caData",
      },
    ]);
  });

  it('no such cluster: says which name and region to check', async () => {
    const result = await read(fleetOf(hub(), spoke()));
    expect(result.read).toEqual([{ cluster: 'spoke', value: 1 }]);
    expect(result.unread[0]?.error).toContain(
      'eks DescribeCluster hub-eu in eu-west-1: no such cluster — check auth.eks.clusterName and region',
    );
  });

  it('a hung endpoint: the call ends at the request timeout, retryable, the token cluster is read', async () => {
    eks.hang = true;
    const result = await read(fleetOf(hub(), spoke()));
    expect(result.read).toEqual([{ cluster: 'spoke', value: 1 }]);
    expect(result.unread[0]?.error).toContain(
      'eks DescribeCluster hub-eu in eu-west-1: timed out after 300 ms',
    );
  });

  it('a failure is not kept: once access is granted the next call succeeds', async () => {
    eks.clusters.set('hub-eu', { endpoint: kube.url, caData: CA_DATA, allowed: ['someone-else'] });
    const api = clientsFor(fleetOf(hub())).get('hub') as ClusterApi;
    const denied = await failureOf(api.list(APPLICATIONS, 'argocd'));
    expect(denied).toMatchObject({ retryable: false, upstreamStatus: 403 });
    eks.clusters.set('hub-eu', { endpoint: kube.url, caData: CA_DATA });
    expect((await api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
    expect(eks.calls).toHaveLength(2);
  });
});
