import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type KubeApiServer, startKubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import { clone, ResourceStore, type StoredObject } from '../../../infra/simulator/resource-store.js';
import { APPLICATIONS, KUBE_RESOURCES } from '../../../lib/kubernetes/resources.js';
import { application } from '../../helpers/simulator.js';

// The store keeps each stored version's JSON text (a LIST page joins them); these prove a text never
// outlives the version it was made from, whichever way the object is written.
const TOKEN = 'json-cache-token';
const BASE = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';

type Listed = { metadata: { continue?: string }; items: StoredObject[] };

describe('the JSON text the simulated API server answers from', () => {
  let server: KubeApiServer;
  const call = async (path: string, init: RequestInit = {}): Promise<{ text: string; status: number }> => {
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) },
    });
    return { text: await response.text(), status: response.status };
  };
  const listed = async (query = ''): Promise<Listed> => JSON.parse((await call(`${BASE}${query}`)).text);
  const patch = (name: string, body: unknown) =>
    call(`${BASE}/${name}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify(body),
    });
  const labelOf = (list: Listed, name: string) =>
    list.items.find((item) => item.metadata.name === name)?.metadata.labels?.stage;

  beforeAll(async () => {
    server = await startKubeApiServer({ tokens: { [TOKEN]: { user: 'admin' } } });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    for (const item of server.store.list(APPLICATIONS))
      server.store.delete(APPLICATIONS, item.metadata.namespace, item.metadata.name);
    for (const name of ['web', 'api', 'db'])
      server.store.create(APPLICATIONS, application(name, {}, { labels: { stage: 'one' } }));
  });

  it('answers a LIST with exactly the text JSON.stringify gives for the same list', async () => {
    await listed();
    const { text } = await call(BASE);
    const items = server.store.list(APPLICATIONS, 'argocd');
    expect(text).toBe(
      JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'ApplicationList',
        metadata: { resourceVersion: server.store.resourceVersion },
        items,
      }),
    );
  });

  it('shows a PATCH in the next LIST, GET and page of a listed object', async () => {
    await listed();
    await call(`${BASE}/api`);
    const patched = await patch('api', { metadata: { labels: { stage: 'two' } } });
    expect(JSON.parse(patched.text).metadata.labels).toEqual({ stage: 'two' });
    expect(labelOf(await listed(), 'api')).toBe('two');
    expect(JSON.parse((await call(`${BASE}/api`)).text).metadata.labels).toEqual({ stage: 'two' });
    const first = await listed('?limit=1');
    expect(first.items.map((i) => i.metadata.name)).toEqual(['api']);
    expect(labelOf(first, 'api')).toBe('two');
  });

  it('shows a write made in the store (as the simulated controller makes it) in the next LIST', async () => {
    await listed();
    server.store.update(APPLICATIONS, 'argocd', 'web', (draft) => {
      draft.status = { sync: { status: 'OutOfSync' } };
    });
    const web = (await listed()).items.find((i) => i.metadata.name === 'web');
    expect(web?.status).toEqual({ sync: { status: 'OutOfSync' } });
    expect(web?.metadata.resourceVersion).toBe(
      server.store.get(APPLICATIONS, 'argocd', 'web')?.metadata.resourceVersion,
    );
  });

  it('shows a PUT, and an object deleted and created again under its name, in the next LIST', async () => {
    await listed();
    const db = server.store.require(APPLICATIONS, 'argocd', 'db');
    const put = await call(`${BASE}/db`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...db, metadata: { ...db.metadata, labels: { stage: 'put' } } }),
    });
    expect(put.status).toBe(200);
    expect(labelOf(await listed(), 'db')).toBe('put');
    await call(`${BASE}/web`, { method: 'DELETE' });
    expect((await listed()).items.map((i) => i.metadata.name)).toEqual(['api', 'db']);
    server.store.create(APPLICATIONS, application('web', {}, { labels: { stage: 'again' } }));
    expect(labelOf(await listed(), 'web')).toBe('again');
    expect((await listed()).items.map((i) => i.metadata.name)).toEqual(['api', 'db', 'web']);
  });
});

describe('ResourceStore.json', () => {
  it('keeps one text per stored version and drops it when the object is written again', () => {
    const store = new ResourceStore(KUBE_RESOURCES);
    const first = store.create(APPLICATIONS, application('web'));
    const text = store.json(first);
    expect(store.json(first)).toBe(text);
    const second = store.update(APPLICATIONS, 'argocd', 'web', (draft) => {
      draft.status = { health: { status: 'Healthy' } };
    });
    const newer = store.json(second);
    expect(newer).not.toBe(text);
    expect(JSON.parse(newer.toString())).toEqual(JSON.parse(JSON.stringify(second)));
    // The replaced version (as a watch replays it) is serialised as it is, not from the current text.
    expect(JSON.parse(store.json(first).toString()).status).toBeUndefined();
  });

  it('serialises, without keeping, an object the store does not hold (a deleted one)', () => {
    const store = new ResourceStore(KUBE_RESOURCES);
    store.create(APPLICATIONS, application('web'));
    const deleted = store.delete(APPLICATIONS, 'argocd', 'web');
    expect(JSON.parse(store.json(deleted).toString()).metadata.resourceVersion).toBe(
      deleted.metadata.resourceVersion,
    );
    expect(store.json(deleted)).not.toBe(store.json(deleted));
  });

  it('lists in key order after objects come and go', () => {
    const store = new ResourceStore(KUBE_RESOURCES);
    for (const name of ['m', 'b', 'x']) store.create(APPLICATIONS, application(name));
    expect(store.list(APPLICATIONS).map((o) => o.metadata.name)).toEqual(['b', 'm', 'x']);
    store.create(APPLICATIONS, application('a'));
    store.delete(APPLICATIONS, 'argocd', 'm');
    store.update(APPLICATIONS, 'argocd', 'x', (draft) => {
      draft.status = {};
    });
    expect(store.list(APPLICATIONS).map((o) => o.metadata.name)).toEqual(['a', 'b', 'x']);
  });
});

describe('the store history watches resume from', () => {
  it('replays each version as it was written', () => {
    const store = new ResourceStore(KUBE_RESOURCES);
    const created = store.create(APPLICATIONS, application('web'));
    store.update(APPLICATIONS, 'argocd', 'web', (draft) => {
      draft.status = { sync: { status: 'OutOfSync' } };
    });
    store.delete(APPLICATIONS, 'argocd', 'web');
    const events = store.eventsSince(Number(created.metadata.resourceVersion) - 1) ?? [];
    expect(events.map((e) => [e.type, e.resourceVersion, e.object.status])).toEqual([
      ['ADDED', Number(created.metadata.resourceVersion), undefined],
      ['MODIFIED', Number(created.metadata.resourceVersion) + 1, { sync: { status: 'OutOfSync' } }],
      ['DELETED', Number(created.metadata.resourceVersion) + 2, { sync: { status: 'OutOfSync' } }],
    ]);
    expect(events[0]?.object).toEqual(JSON.parse(JSON.stringify(created)));
  });

  it('keeps the last 20,000 events however many writes came before', () => {
    const store = new ResourceStore(KUBE_RESOURCES);
    store.create(APPLICATIONS, application('web'));
    for (let i = 0; i < 45_000; i++) {
      store.update(APPLICATIONS, 'argocd', 'web', (draft) => {
        draft.metadata.labels = { n: String(i) };
      });
    }
    const latest = Number(store.resourceVersion);
    expect(store.oldestResumableVersion).toBe(latest - 20_000);
    expect(store.eventsSince(store.oldestResumableVersion - 1)).toBeUndefined();
    const events = store.eventsSince(latest - 3) ?? [];
    expect(events.map((e) => e.resourceVersion)).toEqual([latest - 2, latest - 1, latest]);
    expect(events.at(-1)?.object.metadata.labels).toEqual({ n: '44999' });
    expect(store.eventsSince(store.oldestResumableVersion)).toHaveLength(20_000);
  });
});

describe('clone', () => {
  it('copies a JSON tree deeply and keeps keys, undefined fields and non-JSON values as they are', () => {
    const when = new Date('2026-12-01T00:00:00Z');
    const original = JSON.parse('{"a":{"b":[1,{"c":"d"}]},"__proto__":{"e":1}}') as Record<string, unknown>;
    original.at = when;
    original.none = undefined;
    const copy = clone(original);
    expect(copy).toEqual(original);
    expect(Object.keys(copy)).toEqual(Object.keys(original));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(copy.at).toBeInstanceOf(Date);
    expect(copy.at).not.toBe(when);
    ((copy.a as { b: unknown[] }).b[1] as { c: string }).c = 'changed';
    expect(((original.a as { b: unknown[] }).b[1] as { c: string }).c).toBe('d');
  });
});
