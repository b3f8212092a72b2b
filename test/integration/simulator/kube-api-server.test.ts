import {
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type KubeApiServer, startKubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import { APPLICATIONS, CLUSTER_SECRET_STORES, DEPLOYMENTS } from '../../../lib/kubernetes/resources.js';
import { application, waitFor } from '../../helpers/simulator.js';

const ADMIN = 'admin-token';
const READER = 'reader-token';
const app = { group: 'argoproj.io', version: 'v1alpha1', namespace: 'argocd', plural: 'applications' };

function clientFor(server: KubeApiServer, token?: string): { api: CustomObjectsApi; config: KubeConfig } {
  const config = new KubeConfig();
  config.loadFromOptions({
    // A plain http:// server needs skipTLSVerify, or client-node refuses to build an agent.
    clusters: [{ name: 'sim', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'u', ...(token === undefined ? {} : { token }) }],
    contexts: [{ name: 'ctx', cluster: 'sim', user: 'u' }],
    currentContext: 'ctx',
  });
  return { api: config.makeApiClient(CustomObjectsApi), config };
}

async function statusOf(promise: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    const { code, body } = error as { code: number; body?: unknown };
    return {
      code,
      body: typeof body === 'string' ? JSON.parse(body) : ((body ?? {}) as Record<string, unknown>),
    };
  }
  throw new Error('expected the call to fail');
}

describe('the simulated Kubernetes API server with @kubernetes/client-node 1.4', () => {
  let server: KubeApiServer;
  let api: CustomObjectsApi;

  beforeAll(async () => {
    server = await startKubeApiServer({
      tokens: {
        [ADMIN]: { user: 'admin' },
        [READER]: {
          user: 'reader',
          grants: [
            {
              namespace: 'argocd',
              rules: [{ apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['get', 'list'] }],
            },
          ],
        },
      },
    });
    api = clientFor(server, ADMIN).api;
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    for (const item of server.store.list(APPLICATIONS))
      server.store.delete(APPLICATIONS, item.metadata.namespace, item.metadata.name);
    server.faults.clear();
    server.requests.reset();
  });

  it('creates, lists with a label selector and gets Applications', async () => {
    await api.createNamespacedCustomObject({
      ...app,
      body: application('web', {}, { labels: { team: 'web' } }),
    });
    await api.createNamespacedCustomObject({
      ...app,
      body: application('api', {}, { labels: { team: 'core' } }),
    });
    const all = await api.listNamespacedCustomObject({ ...app });
    expect(all.kind).toBe('ApplicationList');
    expect(all.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['api', 'web']);
    expect(Number(all.metadata.resourceVersion)).toBeGreaterThan(0);
    const selected = await api.listNamespacedCustomObject({ ...app, labelSelector: 'team in (web,ops)' });
    expect(selected.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['web']);
    const web = await api.getNamespacedCustomObject({ ...app, name: 'web' });
    expect(web.metadata).toMatchObject({ name: 'web', namespace: 'argocd', generation: 1 });
    expect(web.metadata.uid).toEqual(expect.any(String));
  });

  it('applies a JSON merge patch when asked with the merge-patch content type', async () => {
    await api.createNamespacedCustomObject({
      ...app,
      body: application('web', {}, { annotations: { keep: 'yes', drop: 'me' } }),
    });
    const patched = await api.patchNamespacedCustomObject(
      {
        ...app,
        name: 'web',
        body: { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal', drop: null } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.metadata.annotations).toEqual({ keep: 'yes', 'argocd.argoproj.io/refresh': 'normal' });
  });

  it('applies a JSON patch and refuses one whose test fails with 422, changing nothing', async () => {
    await api.createNamespacedCustomObject({
      ...app,
      body: application('web', {}, { annotations: { a: '1' } }),
    });
    const patched = await api.patchNamespacedCustomObject({
      ...app,
      name: 'web',
      body: [
        { op: 'test', path: '/metadata/annotations/a', value: '1' },
        { op: 'add', path: '/metadata/annotations/b', value: '2' },
      ],
    });
    expect(patched.metadata.annotations).toEqual({ a: '1', b: '2' });
    const failed = await statusOf(
      api.patchNamespacedCustomObject({
        ...app,
        name: 'web',
        body: [
          { op: 'add', path: '/metadata/annotations/c', value: '3' },
          { op: 'test', path: '/metadata/annotations/a', value: 'other' },
        ],
      }),
    );
    expect(failed.code).toBe(422);
    expect(failed.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    const after = await api.getNamespacedCustomObject({ ...app, name: 'web' });
    expect(after.metadata.annotations).toEqual({ a: '1', b: '2' });
  });

  it('refuses a strategic merge patch on a custom resource with 415 but accepts it on a Deployment', async () => {
    await api.createNamespacedCustomObject({ ...app, body: application('web') });
    const refused = await statusOf(
      api.patchNamespacedCustomObject(
        { ...app, name: 'web', body: { metadata: { labels: { a: 'b' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(refused.code).toBe(415);
    server.store.create(DEPLOYMENTS, { metadata: { name: 'web', namespace: 'web' }, spec: { replicas: 1 } });
    const deployment = await api.patchNamespacedCustomObject(
      {
        group: 'apps',
        version: 'v1',
        namespace: 'web',
        plural: 'deployments',
        name: 'web',
        body: { spec: { replicas: 3 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.metadata.generation).toBe(2);
  });

  it('answers an update with a stale resourceVersion with a 409 Conflict Status', async () => {
    const created = await api.createNamespacedCustomObject({ ...app, body: application('web') });
    await api.replaceNamespacedCustomObject({
      ...app,
      name: 'web',
      body: { ...created, spec: { ...created.spec, project: 'p1' } },
    });
    const conflict = await statusOf(
      api.replaceNamespacedCustomObject({
        ...app,
        name: 'web',
        body: { ...created, spec: { ...created.spec, project: 'p2' } },
      }),
    );
    expect(conflict.code).toBe(409);
    expect(conflict.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    expect(String(conflict.body.message)).toContain('the object has been modified');
  });

  it('answers a duplicate create with 409 AlreadyExists and a missing object with 404 NotFound', async () => {
    await api.createNamespacedCustomObject({ ...app, body: application('web') });
    expect(
      (await statusOf(api.createNamespacedCustomObject({ ...app, body: application('web') }))).body,
    ).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
    });
    expect((await statusOf(api.getNamespacedCustomObject({ ...app, name: 'nope' }))).body).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'applications.argoproj.io "nope" not found',
    });
  });

  it('deletes an object', async () => {
    await api.createNamespacedCustomObject({ ...app, body: application('web') });
    await api.deleteNamespacedCustomObject({ ...app, name: 'web' });
    expect((await statusOf(api.getNamespacedCustomObject({ ...app, name: 'web' }))).code).toBe(404);
  });

  it('serves cluster-scoped resources without a namespace', async () => {
    await api.createClusterCustomObject({
      group: 'external-secrets.io',
      version: 'v1',
      plural: 'clustersecretstores',
      body: {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ClusterSecretStore',
        metadata: { name: 'aws' },
        spec: {},
      },
    });
    const store = await api.getClusterCustomObject({
      group: 'external-secrets.io',
      version: 'v1',
      plural: 'clustersecretstores',
      name: 'aws',
    });
    expect(store.metadata.namespace).toBeUndefined();
    expect(server.store.get(CLUSTER_SECRET_STORES, undefined, 'aws')).toBeDefined();
  });

  it('pages a list with limit and continue', async () => {
    for (const name of ['a', 'b', 'c'])
      await api.createNamespacedCustomObject({ ...app, body: application(name) });
    const first = await api.listNamespacedCustomObject({ ...app, limit: 2 });
    expect(first.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a', 'b']);
    expect(first.metadata.remainingItemCount).toBe(1);
    const second = await api.listNamespacedCustomObject({
      ...app,
      limit: 2,
      _continue: first.metadata.continue,
    });
    expect(second.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c']);
    expect(second.metadata.continue).toBeUndefined();
  });

  it('ignores limit for a watch-cache read (resourceVersion=0), as a real API server does', async () => {
    for (const name of ['a', 'b', 'c'])
      await api.createNamespacedCustomObject({ ...app, body: application(name) });
    const cached = await api.listNamespacedCustomObject({ ...app, limit: 2, resourceVersion: '0' });
    expect(cached.items).toHaveLength(3);
    expect(cached.metadata.continue).toBeUndefined();
  });

  it('answers a missing or unknown token with 401 and counts the request', async () => {
    expect((await statusOf(clientFor(server).api.listNamespacedCustomObject({ ...app }))).code).toBe(401);
    expect(
      (await statusOf(clientFor(server, 'forged').api.listNamespacedCustomObject({ ...app }))).code,
    ).toBe(401);
    expect(server.requests.count({ verb: 'list', resource: 'applications' })).toBe(2);
  });

  it('answers a verb the token is not granted with a 403 Forbidden naming it', async () => {
    await api.createNamespacedCustomObject({ ...app, body: application('web') });
    const reader = clientFor(server, READER).api;
    await expect(reader.getNamespacedCustomObject({ ...app, name: 'web' })).resolves.toBeDefined();
    const denied = await statusOf(
      reader.patchNamespacedCustomObject(
        { ...app, name: 'web', body: { metadata: { labels: { x: 'y' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(denied.code).toBe(403);
    expect(String(denied.body.message)).toBe(
      'applications.argoproj.io "web" is forbidden: User "reader" cannot patch resource "applications" in API group "argoproj.io" in the namespace "argocd"',
    );
    const otherNamespace = await statusOf(reader.listNamespacedCustomObject({ ...app, namespace: 'team-a' }));
    expect(otherNamespace.code).toBe(403);
  });

  it('streams watch events for changes after the list resourceVersion', async () => {
    await api.createNamespacedCustomObject({ ...app, body: application('web') });
    const listed = await api.listNamespacedCustomObject({ ...app });
    const events: { type: string; name: string; refresh?: string }[] = [];
    const { config } = clientFor(server, ADMIN);
    const request = await new Watch(config).watch(
      '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications',
      { resourceVersion: listed.metadata.resourceVersion },
      (type, object) =>
        events.push({
          type,
          name: object.metadata.name,
          refresh: object.metadata.annotations?.['argocd.argoproj.io/refresh'],
        }),
      () => undefined,
    );
    try {
      await api.patchNamespacedCustomObject(
        {
          ...app,
          name: 'web',
          body: { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'hard' } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await api.createNamespacedCustomObject({ ...app, body: application('api') });
      await api.deleteNamespacedCustomObject({ ...app, name: 'api' });
      await waitFor(() => events.length >= 3);
      expect(events).toEqual([
        { type: 'MODIFIED', name: 'web', refresh: 'hard' },
        { type: 'ADDED', name: 'api', refresh: undefined },
        { type: 'DELETED', name: 'api', refresh: undefined },
      ]);
      expect(server.requests.count({ verb: 'watch', resource: 'applications' })).toBe(1);
    } finally {
      request.abort();
    }
  });

  it('serves discovery for every registered group', async () => {
    const response = await fetch(`${server.url}/apis/argoproj.io/v1alpha1`, {
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    const list = (await response.json()) as {
      resources: { name: string; namespaced: boolean; kind: string }[];
    };
    expect(list.resources).toContainEqual(
      expect.objectContaining({ name: 'applications', namespaced: true, kind: 'Application' }),
    );
    const groups = (await (
      await fetch(`${server.url}/apis`, { headers: { Authorization: `Bearer ${ADMIN}` } })
    ).json()) as {
      groups: { name: string }[];
    };
    expect(groups.groups.map((g) => g.name).sort()).toEqual([
      'apiextensions.k8s.io',
      'apps',
      'argoproj.io',
      'autoscaling',
      'external-secrets.io',
      'keda.sh',
      'source.toolkit.fluxcd.io',
    ]);
  });

  it('lists the namespaces objects live in on the core API, as kubectl expects', async () => {
    await api.createNamespacedCustomObject({ ...app, body: application('web') });
    const response = await fetch(`${server.url}/api/v1/namespaces`, {
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    const list = (await response.json()) as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('NamespaceList');
    expect(list.items.map((n) => n.metadata.name)).toContain('argocd');
  });
});

describe('anonymous access to the simulated API server', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await startKubeApiServer({
      tokens: { [ADMIN]: { user: 'admin' } },
      anonymous: {
        user: 'system:anonymous',
        grants: [
          { rules: [{ apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['get', 'list'] }] },
        ],
      },
    });
    server.store.create(APPLICATIONS, application('web'));
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves a request without a token as the anonymous identity (kubectl sends none over http)', async () => {
    const list = await clientFor(server).api.listNamespacedCustomObject({ ...app });
    expect(list.items).toHaveLength(1);
    const denied = await statusOf(
      clientFor(server).api.patchNamespacedCustomObject(
        { ...app, name: 'web', body: { metadata: { labels: { a: 'b' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(denied.code).toBe(403);
  });

  it('still refuses a wrong token with 401', async () => {
    expect(
      (await statusOf(clientFor(server, 'forged').api.listNamespacedCustomObject({ ...app }))).code,
    ).toBe(401);
  });
});
