import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type KubeApiServer, startKubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import { UpstreamError } from '../../../lib/errors.js';
import type { ClusterConfig, FleetConfig } from '../../../lib/fleet/fleet-config.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { createEksToken } from '../../../lib/kubernetes/eks-token.js';
import { KubernetesApiError } from '../../../lib/kubernetes/kube-error.js';
import { APPLICATIONS, CLUSTER_SECRET_STORES } from '../../../lib/kubernetes/resources.js';
import { application, startTestCluster } from '../../helpers/simulator.js';

const TOKEN = 'orchestrator-token-0123456789';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:spoke-AbCdEf';

function fleetOf(...clusters: ClusterConfig[]): FleetConfig {
  return { clusters, repositories: [], secretPolicy: 'block', secretStores: [] };
}

function secretsFrom(values: string[]) {
  let reads = 0;
  return {
    reads: () => reads,
    getSecretString: async () => values[Math.min(reads++, values.length - 1)] as string,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<KubernetesApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(KubernetesApiError);
    return error as KubernetesApiError;
  }
  throw new Error('expected the call to fail');
}

describe('createClusterClients against the simulated API server', () => {
  let server: KubeApiServer;
  let api: ClusterApi;
  const sleeps: number[] = [];

  beforeAll(async () => {
    server = await startKubeApiServer({ tokens: { [TOKEN]: { user: 'orchestrator' } } });
    server.store.create(APPLICATIONS, application('web', {}, { labels: { tier: 'front' } }));
    server.store.create(APPLICATIONS, application('api'));
    server.store.create(CLUSTER_SECRET_STORES, { metadata: { name: 'aws' }, spec: {} });
    const clients = createClusterClients(
      fleetOf({ name: 'hub', server: server.url, auth: { token: TOKEN }, timeoutMs: 300 }),
      {
        secrets: secretsFrom([]),
        retry: { attempts: 3, baseMs: 1, maxMs: 5, sleep: async (ms) => void sleeps.push(ms) },
      },
    );
    api = clients.get('hub') as ClusterApi;
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.faults.clear();
    server.requests.reset();
    sleeps.length = 0;
  });

  it('lists a namespace with one LIST request and returns the resourceVersion', async () => {
    const list = await api.list(APPLICATIONS, 'argocd');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['api', 'web']);
    expect(list.resourceVersion).toBe(server.store.resourceVersion);
    expect(server.requests.count({ verb: 'list', resource: 'applications' })).toBe(1);
  });

  it('lists across namespaces and by label selector', async () => {
    expect((await api.list(APPLICATIONS)).items).toHaveLength(2);
    const front = await api.list(APPLICATIONS, 'argocd', { labelSelector: 'tier=front' });
    expect(front.items.map((i) => i.metadata.name)).toEqual(['web']);
  });

  it('gets namespaced and cluster-scoped objects', async () => {
    expect((await api.get(APPLICATIONS, 'argocd', 'web')).metadata.name).toBe('web');
    expect((await api.get(CLUSTER_SECRET_STORES, undefined, 'aws')).metadata.name).toBe('aws');
  });

  it('merge-patches the refresh annotation without touching other annotations', async () => {
    await api.mergePatch(APPLICATIONS, 'argocd', 'web', { metadata: { annotations: { keep: 'me' } } });
    const patched = await api.mergePatch(APPLICATIONS, 'argocd', 'web', {
      metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } },
    });
    expect(patched.metadata.annotations).toEqual({ keep: 'me', 'argocd.argoproj.io/refresh': 'normal' });
  });

  it('merge-patches without reading the answer, and reports a missing object as a non-retryable 404', async () => {
    await api.mergePatchQuiet(APPLICATIONS, 'argocd', 'web', {
      metadata: { annotations: { 'argocd.argoproj.io/refresh': 'hard' } },
    });
    expect(
      (await api.get(APPLICATIONS, 'argocd', 'web')).metadata.annotations?.['argocd.argoproj.io/refresh'],
    ).toBe('hard');
    const failure = await failureOf(api.mergePatchQuiet(APPLICATIONS, 'argocd', 'nope', { metadata: {} }));
    expect(failure.upstreamStatus).toBe(404);
    expect(failure.retryable).toBe(false);
    expect(failure.message).toContain('patch applications.argoproj.io argocd/nope: 404');
  });

  it('retries a quiet merge patch the server refused with a 503', async () => {
    server.faults.set({ status: 503, times: 1, only: { verb: 'patch' } });
    await api.mergePatchQuiet(APPLICATIONS, 'argocd', 'web', { metadata: { annotations: { again: 'yes' } } });
    expect(server.requests.count({ verb: 'patch' })).toBe(2);
    expect((await api.get(APPLICATIONS, 'argocd', 'web')).metadata.annotations?.again).toBe('yes');
  });

  it('JSON-patches guarded by a test and reports a failed guard as a non-retryable 422', async () => {
    await api.jsonPatch(APPLICATIONS, 'argocd', 'api', [
      { op: 'add', path: '/metadata/annotations', value: { 'argocd.argoproj.io/refresh': 'hard' } },
    ]);
    const failure = await failureOf(
      api.jsonPatch(APPLICATIONS, 'argocd', 'api', [
        { op: 'test', path: '/metadata/annotations/argocd.argoproj.io~1refresh', value: 'normal' },
        { op: 'replace', path: '/metadata/annotations/argocd.argoproj.io~1refresh', value: 'normal' },
      ]),
    );
    expect(failure.upstreamStatus).toBe(422);
    expect(failure.retryable).toBe(false);
    expect(server.requests.count({ verb: 'patch' })).toBe(2);
  });

  it('retries a 500 and succeeds on the next attempt', async () => {
    server.faults.set({ status: 500, times: 1 });
    await expect(api.get(APPLICATIONS, 'argocd', 'web')).resolves.toBeDefined();
    expect(server.requests.count({ verb: 'get', resource: 'applications' })).toBe(2);
    expect(sleeps).toHaveLength(1);
  });

  it("waits for a 429's Retry-After before trying again", async () => {
    server.faults.set({ status: 429, retryAfterSeconds: 2, times: 1 });
    await expect(api.list(APPLICATIONS, 'argocd')).resolves.toBeDefined();
    expect(sleeps).toEqual([2000]);
  });

  it('turns a hanging server into a retryable timeout error after the bounded attempts', async () => {
    server.faults.set({ hang: true, only: { verb: 'get' } });
    const failure = await failureOf(api.get(APPLICATIONS, 'argocd', 'web'));
    expect(failure.message).toBe(
      'cluster hub: get applications.argoproj.io argocd/web: timed out after 300 ms',
    );
    expect(failure.retryable).toBe(true);
    expect(server.requests.count({ verb: 'get' })).toBe(3);
  });

  it('gives up on a persistent 503 after three attempts', async () => {
    server.faults.set({ status: 503, only: { resource: 'applications' } });
    const failure = await failureOf(api.list(APPLICATIONS, 'argocd'));
    expect(failure.upstreamStatus).toBe(503);
    expect(server.requests.count()).toBe(3);
  });

  it('does not retry a 404 and says what was missing', async () => {
    const failure = await failureOf(api.get(APPLICATIONS, 'argocd', 'nope'));
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure.upstreamStatus).toBe(404);
    expect(failure.message).toBe(
      'cluster hub: get applications.argoproj.io argocd/nope: 404 NotFound: applications.argoproj.io "nope" not found',
    );
    expect(server.requests.count()).toBe(1);
  });

  it('reports a refused connection as retryable, without the token', async () => {
    const closed = await startKubeApiServer();
    const url = closed.url;
    await closed.close();
    const down = createClusterClients(fleetOf({ name: 'down', server: url, auth: { token: TOKEN } }), {
      secrets: secretsFrom([]),
      retry: false,
    }).get('down') as ClusterApi;
    const failure = await failureOf(down.list(APPLICATIONS, 'argocd'));
    expect(failure.retryable).toBe(true);
    expect(failure.message).toContain('ECONNREFUSED');
    expect(failure.message).not.toContain(TOKEN);
  });
});

describe('cluster credentials', () => {
  let server: KubeApiServer;

  beforeAll(async () => {
    server = await startKubeApiServer();
    server.store.create(APPLICATIONS, application('web'));
  });
  afterAll(async () => {
    await server.close();
  });

  it('reads a bare token from Secrets Manager once and reuses it', async () => {
    server.access.set('from-secret', { user: 'sm' });
    const secrets = secretsFrom(['from-secret']);
    const api = createClusterClients(
      fleetOf({ name: 'spoke', server: server.url, auth: { tokenSecret: SECRET_ARN } }),
      { secrets, retry: false },
    ).get('spoke') as ClusterApi;
    await api.list(APPLICATIONS, 'argocd');
    await api.get(APPLICATIONS, 'argocd', 'web');
    expect(secrets.reads()).toBe(1);
  });

  it("takes server and token from a kubeconfig secret's current context", async () => {
    server.access.set('kubeconfig-token', { user: 'kc' });
    const kubeconfig = [
      'apiVersion: v1',
      'current-context: sim',
      `clusters: [{ name: sim, cluster: { server: "${server.url}" } }]`,
      'users: [{ name: orchestrator, user: { token: kubeconfig-token } }]',
      'contexts: [{ name: sim, context: { cluster: sim, user: orchestrator } }]',
    ].join('\n');
    const api = createClusterClients(
      fleetOf({ name: 'spoke', server: 'http://127.0.0.1:9', auth: { tokenSecret: SECRET_ARN } }),
      { secrets: secretsFrom([kubeconfig]), retry: false },
    ).get('spoke') as ClusterApi;
    expect((await api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
  });

  it('re-reads a rotated secret once after a 401', async () => {
    server.access.set('rotated-new', { user: 'sm' });
    const secrets = secretsFrom(['rotated-old', 'rotated-new']);
    const api = createClusterClients(
      fleetOf({ name: 'spoke', server: server.url, auth: { tokenSecret: SECRET_ARN } }),
      { secrets, retry: false },
    ).get('spoke') as ClusterApi;
    await expect(api.list(APPLICATIONS, 'argocd')).resolves.toBeDefined();
    expect(secrets.reads()).toBe(2);
  });

  it('fails with 401, not retryable and without the token, when the secret holds a revoked token', async () => {
    const api = createClusterClients(
      fleetOf({ name: 'spoke', server: server.url, auth: { tokenSecret: SECRET_ARN } }),
      { secrets: secretsFrom(['revoked-token-value']), retry: false },
    ).get('spoke') as ClusterApi;
    const failure = await failureOf(api.list(APPLICATIONS, 'argocd'));
    expect(failure.upstreamStatus).toBe(401);
    expect(failure.retryable).toBe(false);
    expect(failure.message).not.toContain('revoked-token-value');
  });

  it('authenticates an eks cluster with a signed k8s-aws-v1 token', async () => {
    const now = new Date('2024-05-06T07:08:09Z');
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-key-example' };
    const expected = await createEksToken({ clusterName: 'hub-eu', region: 'eu-west-1', credentials, now });
    server.access.set(expected, { user: 'arn:aws:iam::123456789012:role/gitops-sync' });
    const requested: { roleArn?: string; region: string }[] = [];
    const api = createClusterClients(
      fleetOf({
        name: 'hub',
        server: server.url,
        auth: {
          eks: {
            clusterName: 'hub-eu',
            region: 'eu-west-1',
            roleArn: 'arn:aws:iam::123456789012:role/gitops-sync',
          },
        },
      }),
      {
        secrets: secretsFrom([]),
        clock: { now: () => now },
        awsCredentials: (request) => {
          requested.push(request);
          return async () => credentials;
        },
        retry: false,
      },
    ).get('hub') as ClusterApi;
    expect((await api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
    expect(requested).toEqual([
      { region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/gitops-sync' },
    ]);
  });
});

describe('the startTestCluster helper', () => {
  it('gives a ClusterApi on a fresh simulated cluster that other tests can seed and fault', async () => {
    const cluster = await startTestCluster({ name: 'hub', timeoutMs: 200 });
    try {
      cluster.server.store.create(APPLICATIONS, application('web'));
      expect((await cluster.api.list(APPLICATIONS, 'argocd')).items).toHaveLength(1);
      cluster.server.faults.set({ status: 500, times: 1 });
      await expect(cluster.api.get(APPLICATIONS, 'argocd', 'web')).rejects.toMatchObject({
        upstreamStatus: 500,
      });
      expect(cluster.fleet.clusters[0]?.name).toBe('hub');
    } finally {
      await cluster.close();
    }
  });
});
