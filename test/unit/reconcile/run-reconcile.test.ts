import { describe, expect, it } from 'vitest';
import { findingKey } from '../../../lib/audit/lifecycle.js';
import type { Finding } from '../../../lib/audit/types.js';
import { UpstreamError } from '../../../lib/errors.js';
import type { FleetConfig } from '../../../lib/fleet/fleet-config.js';
import type { ClusterApi, KubeList, KubeObject, ListOptions } from '../../../lib/kubernetes/cluster-api.js';
import { DEFAULT_PAGE_SIZE } from '../../../lib/kubernetes/list-pages.js';
import type { KubeResource } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import type { ClusterMemory, FindingsStore, ReconcileMemory } from '../../../lib/reconcile/ports.js';
import type { ReconcileReport } from '../../../lib/reconcile/report.js';
import { type ReconcileDeps, runReconcile } from '../../../lib/reconcile/run-reconcile.js';

// In-process fakes of the pass's ports (a paging API server, Git, the findings and memory stores): these
// tests are about how the pass walks the pages, which the integration tests' simulator cannot observe.

const REPO = 'https://git.example/org/gitops';
const OLD = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);
const FINALIZER = 'resources-finalizer.argocd.argoproj.io';
const START = new Date('2026-09-01T10:00:00Z');
/** Three pages: two full ones and one app on the third. */
const APPS = 2 * DEFAULT_PAGE_SIZE + 1;

interface AppShape {
  readonly degraded?: boolean;
  readonly finalizer?: boolean;
  readonly synced?: string;
}

const name = (i: number) => `app-${String(i).padStart(4, '0')}`;

function application(i: number, shape: AppShape = {}): KubeObject {
  return {
    metadata: {
      name: name(i),
      namespace: 'argocd',
      ...(shape.finalizer === false ? {} : { finalizers: [FINALIZER] }),
    },
    spec: {
      project: i % 2 === 0 ? 'shop' : 'default',
      source: { repoURL: REPO, path: `apps/${name(i)}`, targetRevision: 'main' },
      destination: { name: 'hub', namespace: name(i) },
    },
    status: {
      sync: { status: 'Synced', revision: shape.synced ?? HEAD },
      health: { status: shape.degraded === true ? 'Degraded' : 'Healthy', message: 'pod crash-looping' },
      history: [{ id: 1, revision: shape.synced ?? HEAD, deployedAt: '2026-09-01T09:00:00Z' }],
    },
  };
}

/** The fleet's apps: every fourth is Degraded, every seventh lacks the finalizer, odd ones use `default`. */
function fleetApps(count: number, shape: (i: number) => AppShape = () => ({})): KubeObject[] {
  return Array.from({ length: count }, (_, i) =>
    application(i, { degraded: i % 4 === 0, finalizer: i % 7 !== 0, ...shape(i) }),
  );
}

interface ServerOptions {
  /** Answers every LIST in one page whatever `limit` says (a server answering from its watch cache). */
  readonly onePage?: boolean;
  /** The first request with this continue token answers 410 Gone (the token expired). */
  readonly goneAt?: string;
  /** Requests with this continue token fail. */
  readonly failAt?: string;
}

/** An API server holding `apps()` in the argocd namespace and nothing else (no autoscalers: 404). */
function server(
  apps: () => readonly KubeObject[],
  events: string[],
  options: ServerOptions = {},
): ClusterApi {
  let gone = options.goneAt;
  const unused = () => Promise.reject(new Error('not used'));
  return {
    cluster: 'hub',
    list: async (resource: KubeResource, _namespace?: string, list?: ListOptions): Promise<KubeList> => {
      if (resource.plural !== 'applications') {
        throw new UpstreamError('not found', { retryable: false, upstreamStatus: 404 });
      }
      const token = list?.continue;
      if (token !== undefined && token === gone) {
        gone = undefined;
        throw new UpstreamError('continue token expired', { retryable: false, upstreamStatus: 410 });
      }
      if (token !== undefined && token === options.failAt) {
        throw new UpstreamError('connection reset', { retryable: true, upstreamStatus: 503 });
      }
      const all = apps();
      const start = token === undefined ? 0 : Number(token);
      const limit = options.onePage === true ? all.length : (list?.limit ?? all.length);
      const end = Math.min(all.length, start + limit);
      events.push(`list page from ${start}`);
      const items = structuredClone(all.slice(start, end));
      const slim = list?.slim;
      return {
        items: slim === undefined ? items : items.map((item) => slim(item)),
        resourceVersion: '1',
        ...(end < all.length ? { continue: String(end) } : {}),
      };
    },
    get: unused,
    mergePatch: unused,
    mergePatchQuiet: unused,
    jsonPatch: unused,
  };
}

interface World {
  readonly deps: ReconcileDeps;
  readonly findings: Map<string, Finding>;
  readonly memory: Map<string, ClusterMemory>;
  readonly sent: PushMessage[];
  readonly events: string[];
  advance(ms: number): void;
}

function world(
  apps: () => readonly KubeObject[],
  options: ServerOptions = {},
  head: () => string = () => HEAD,
): World {
  const events: string[] = [];
  const findings = new Map<string, Finding>();
  const memory = new Map<string, ClusterMemory>();
  const claimed = new Set<string>();
  const sent: PushMessage[] = [];
  let now = START.getTime();
  const fleet: FleetConfig = {
    clusters: [{ name: 'hub', server: 'https://hub', auth: { token: 't' }, argocd: { namespace: 'argocd' } }],
    repositories: [{ url: REPO }],
    secretPolicy: 'block',
    secretStores: [],
  };
  const findingsStore: FindingsStore = {
    // A pass settles cluster by cluster: the whole fleet's findings (300,000 at 100,000 apps) never load.
    loadAll: async () => {
      throw new Error('a pass loaded every finding of the fleet');
    },
    loadOpen: async () => [...findings.values()].filter((f) => f.resolvedAt === undefined),
    loadCluster: async (cluster) => [...findings.values()].filter((f) => f.cluster === cluster),
    storedClusters: async () => [...new Set([...findings.values()].map((f) => f.cluster))],
    write: async (writes) => {
      for (const f of writes) findings.set(findingKey(f), f);
    },
  };
  const memoryStore: ReconcileMemory = {
    // A pass loads each cluster's memory as it reaches the cluster, never the whole fleet's at once.
    loadCluster: async (cluster) => {
      events.push(`memory ${cluster}`);
      return memory.get(cluster);
    },
    saveCluster: async (cluster, saved) => {
      memory.set(cluster, { apps: new Map(saved), chunks: 1 });
    },
    claimMissedWebhook: async (key) => {
      if (claimed.has(key)) return false;
      claimed.add(key);
      return true;
    },
    releaseMissedWebhook: async (key) => {
      claimed.delete(key);
    },
  };
  const deps: ReconcileDeps = {
    fleet,
    clusters: new Map([['hub', server(apps, events, options)]]),
    git: {
      listRemoteRefs: async () => ({ refs: new Map([['refs/heads/main', head()]]), head: 'refs/heads/main' }),
      readManifests: async (request) => {
        events.push(`audit ${request.path}`);
        return { documents: [], notRendered: false, errors: [], skipped: [] };
      },
    },
    credentials: async () => undefined,
    findings: findingsStore,
    memory: memoryStore,
    rollouts: { exists: async () => false, listApps: async () => [] },
    pushQueue: {
      send: async (message) => {
        sent.push(message);
      },
      sendBatch: async (entries) => {
        for (const { message } of entries) sent.push(message);
      },
    },
    digest: async () => undefined,
    clock: { now: () => new Date(now) },
    logger: createMemoryLogger(),
  };
  return {
    deps,
    findings,
    memory,
    sent,
    events,
    advance: (ms) => {
      now += ms;
    },
  };
}

const open = (w: World) =>
  [...w.findings.values()]
    .filter((f) => f.resolvedAt === undefined)
    .map((f) => `${f.rule} ${f.app}`)
    .sort();

const pageOf = (app: string) => Math.floor(Number(app.slice('app-'.length)) / DEFAULT_PAGE_SIZE);

describe('runReconcile over a cluster of more than one page of Applications', () => {
  it('reports the same findings, memory and counts as when the whole cluster comes in one answer', async () => {
    const paged = world(() => fleetApps(APPS));
    const whole = world(() => fleetApps(APPS), { onePage: true });
    const pagedReport = await runReconcile(paged.deps);
    const wholeReport = await runReconcile(whole.deps);

    expect(paged.events.filter((e) => e.startsWith('list'))).toHaveLength(3);
    expect(whole.events.filter((e) => e.startsWith('list'))).toHaveLength(1);
    expect(open(paged)).toEqual(open(whole));
    expect(paged.findings).toEqual(whole.findings);
    expect(paged.memory).toEqual(whole.memory);
    const comparable = ({ durationMs: _, ...rest }: ReconcileReport) => rest;
    expect(comparable(pagedReport)).toEqual(comparable(wholeReport));
    expect(pagedReport.applications).toBe(APPS);
    expect(paged.memory.get('hub')?.apps.size).toBe(APPS);
    // Not vacuous: every page has Degraded apps, and each one has its finding (and only those apps).
    const degraded = fleetApps(APPS).flatMap((a) =>
      (a.status as { health: { status: string } }).health.status === 'Degraded' ? [a.metadata.name] : [],
    );
    expect(new Set(degraded.map(pageOf))).toEqual(new Set([0, 1, 2]));
    expect(
      open(paged)
        .filter((f) => f.startsWith('degraded '))
        .map((f) => f.slice('degraded '.length)),
    ).toEqual(degraded);
  });

  it('loads the cluster’s memory once, as the pass reaches it, and the next pass reads what it wrote', async () => {
    const w = world(() => fleetApps(APPS));
    await runReconcile(w.deps);
    expect(w.events.filter((e) => e.startsWith('memory'))).toEqual(['memory hub']);
    expect(w.events.indexOf('memory hub')).toBeLessThan(w.events.findIndex((e) => e.startsWith('audit ')));
    const written = w.memory.get('hub');
    expect(written?.apps.size).toBe(APPS);
    w.advance(60_000);
    await runReconcile(w.deps);
    expect(w.events.filter((e) => e.startsWith('memory'))).toEqual(['memory hub', 'memory hub']);
    // The second pass added an observation to what the first wrote: it read the first pass's memory.
    const app = [...(written?.apps.keys() ?? [])][0] as string;
    expect(w.memory.get('hub')?.apps.get(app)?.observations.length).toBeGreaterThanOrEqual(
      written?.apps.get(app)?.observations.length ?? 0,
    );
  });

  it('asks for the next page only after the apps of the one before were audited', async () => {
    const w = world(() => fleetApps(APPS));
    await runReconcile(w.deps);
    const lists = w.events.flatMap((e, i) => (e.startsWith('list') ? [i] : []));
    expect(lists).toHaveLength(3);
    const auditedAt = (page: number) =>
      w.events.flatMap((e, i) =>
        e.startsWith('audit ') && pageOf(e.slice('audit apps/'.length)) === page ? [i] : [],
      );
    for (const page of [0, 1, 2]) {
      const audits = auditedAt(page);
      expect(audits.length).toBeGreaterThan(0);
      // Every app of the page was audited after its page arrived and before the next page was asked for.
      expect(Math.min(...audits)).toBeGreaterThan(lists[page] as number);
      if (page < 2) expect(Math.max(...audits)).toBeLessThan(lists[page + 1] as number);
    }
  });

  it('resolves a finding of an app on the last page and keeps the others open on the next pass', async () => {
    let apps = fleetApps(APPS);
    const w = world(() => apps);
    await runReconcile(w.deps);
    const before = open(w);
    const last = apps.at(-1)?.metadata.name as string;
    expect(before).toContain(`degraded ${last}`);

    apps = fleetApps(APPS, (i) => (i === APPS - 1 ? { degraded: false } : {}));
    w.advance(60_000);
    const report = await runReconcile(w.deps);
    expect(report.findings.resolved).toBe(1);
    expect(open(w)).toEqual(before.filter((f) => f !== `degraded ${last}`));
  });

  it('enqueues one push for a commit that apps on the first and the last page missed', async () => {
    let head = OLD;
    const behind = new Set([1, APPS - 1]);
    const w = world(
      () => fleetApps(APPS, (i) => ({ synced: behind.has(i) ? OLD : head })),
      {},
      () => head,
    );
    await runReconcile(w.deps);
    head = HEAD;
    await runReconcile(w.deps);
    expect(w.sent).toEqual([]);
    w.advance(10 * 60_000);
    const report = await runReconcile(w.deps);
    expect(report.missedWebhooks).toMatchObject([{ sha: HEAD, apps: 2, action: 'enqueued' }]);
    expect(w.sent).toHaveLength(1);
  });

  it('audits each app once when the listing starts again after its continue token expired', async () => {
    const w = world(() => fleetApps(APPS), { goneAt: String(2 * DEFAULT_PAGE_SIZE) });
    const report = await runReconcile(w.deps);
    // Two pages, the third refused (410, not counted), then the three pages again.
    expect(w.events.filter((e) => e.startsWith('list'))).toHaveLength(5);
    expect(report.applications).toBe(APPS);
    const audits = w.events.filter((e) => e.startsWith('audit '));
    expect(new Set(audits).size).toBe(audits.length);
    expect(audits).toHaveLength(APPS);
  });

  it('treats a cluster whose second page fails as unread: no finding written, none resolved', async () => {
    const w = world(() => fleetApps(APPS));
    await runReconcile(w.deps);
    const before = [...w.findings.values()];
    expect(before.length).toBeGreaterThan(0);

    const failing = world(() => fleetApps(APPS, () => ({ degraded: false })), {
      failAt: String(DEFAULT_PAGE_SIZE),
    });
    for (const f of before) failing.findings.set(findingKey(f), f);
    const report = await runReconcile(failing.deps);
    expect(report.clusters).toEqual({ read: [], unread: [{ name: 'hub', error: 'connection reset' }] });
    expect(report.applications).toBe(0);
    expect([...failing.findings.values()]).toEqual(before);
    expect(failing.memory.size).toBe(0);
  });
});
