import { afterEach, describe, expect, it } from 'vitest';
import {
  type SimulatedController,
  startArgoCdController,
} from '../../../infra/simulator/argocd-controller.js';
import { parseReconciliationTimeout } from '../../../infra/simulator/polling.js';
import { ResourceStore, type StoredObject } from '../../../infra/simulator/resource-store.js';
import { APPLICATIONS, CONFIG_MAPS, KUBE_RESOURCES } from '../../../lib/kubernetes/resources.js';
import { application, startTestCluster } from '../../helpers/simulator.js';

const REPO = 'https://git.example/org/platform';
const OLD = 'a'.repeat(40);
const NEW = 'b'.repeat(40);
const NEWER = 'c'.repeat(40);
const START = Date.parse('2024-06-01T12:00:00Z');

interface View {
  status: {
    sync: { status?: string; revision?: string };
    operationState: { phase: string; operation: { sync: { revision?: string } } };
  };
}

/** An auto-sync app deployed and last compared at `revision` when the test starts. */
function deployedApp(
  name: string,
  targetRevision = 'main',
  revision = OLD,
  annotations: Record<string, string> = {},
): StoredObject {
  return {
    ...application(
      name,
      {
        source: { repoURL: REPO, path: `apps/${name}`, targetRevision },
        syncPolicy: { automated: { prune: true, selfHeal: true } },
      },
      { annotations },
    ),
    status: {
      sync: { status: 'Synced', revision },
      health: { status: 'Healthy' },
      reconciledAt: '2024-06-01T12:00:00Z',
      operationState: {
        operation: { sync: { revision } },
        phase: 'Succeeded',
        syncResult: { revision },
        startedAt: '2024-06-01T11:59:50Z',
        finishedAt: '2024-06-01T12:00:00Z',
      },
    },
  } as StoredObject;
}

let controllers: SimulatedController[] = [];
afterEach(() => {
  for (const c of controllers) c.stop();
  controllers = [];
});

function world(options: { reconciliationMs?: number; argocdCm?: Record<string, string> } = {}) {
  const store = new ResourceStore(KUBE_RESOURCES);
  if (options.argocdCm !== undefined)
    store.create(CONFIG_MAPS, {
      metadata: { name: 'argocd-cm', namespace: 'argocd' },
      data: options.argocdCm,
    });
  let time = START;
  const heads: Record<string, string> = { main: OLD };
  const asked: string[] = [];
  const controller = startArgoCdController({
    store,
    resolveRevision: (repoURL, revision) => {
      asked.push(revision);
      return repoURL === REPO ? heads[revision] : undefined;
    },
    clock: { now: () => new Date(time) },
    tickMs: 0,
    syncMs: 100,
    healthMs: 50,
    ...(options.reconciliationMs === undefined ? {} : { reconciliationMs: options.reconciliationMs }),
  });
  controllers.push(controller);
  return {
    store,
    heads,
    asked,
    /** Moves the clock in steps of `stepMs`, ticking after each. */
    async advance(ms: number, stepMs = 100) {
      for (let done = 0; done < ms; done += stepMs) {
        time += Math.min(stepMs, ms - done);
        await controller.tick();
      }
    },
    app: (name: string) => store.require(APPLICATIONS, 'argocd', name) as unknown as View,
    refresh(name: string) {
      store.update(APPLICATIONS, 'argocd', name, (a) => {
        a.metadata.annotations = { ...a.metadata.annotations, 'argocd.argoproj.io/refresh': 'normal' };
      });
    },
  };
}

describe('timeout.reconciliation as the simulator reads it', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['500ms', 0],
    ['180s', 180_000],
    ['3m', 180_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['120', 120_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseReconciliationTimeout(text)).toBe(ms);
  });

  it.each(['off', 'never', '-5s', ''])('%s is not a duration (Argo CD falls back to its default)', (text) => {
    expect(parseReconciliationTimeout(text)).toBeUndefined();
  });
});

describe('the simulated Argo CD polls Git', () => {
  it('by default every 180 s: a pushed commit is synced with no refresh from anyone', async () => {
    const w = world();
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.heads.main = NEW;
    await w.advance(179_000, 1000);
    expect(w.app('web').status.sync).toEqual({ status: 'Synced', revision: OLD });
    await w.advance(2000, 1000);
    expect(w.app('web').status.operationState.operation.sync.revision).toBe(NEW);
    await w.advance(1000);
    expect(w.app('web').status.sync).toEqual({ status: 'Synced', revision: NEW });
  });

  it("at argocd-cm's timeout.reconciliation, which a test shortens by writing the ConfigMap", async () => {
    const w = world({ argocdCm: { 'timeout.reconciliation': '2s' } });
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.heads.main = NEW;
    await w.advance(1500);
    expect(w.app('web').status.sync.revision).toBe(OLD);
    await w.advance(1000);
    expect(w.app('web').status.operationState.operation.sync.revision).toBe(NEW);
  });

  it('never with 0s: the app stays at its commit for an hour, until something refreshes it', async () => {
    const w = world({ argocdCm: { 'timeout.reconciliation': '0s' } });
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.heads.main = NEW;
    await w.advance(3_600_000, 60_000);
    expect(w.app('web').status.sync).toEqual({ status: 'Synced', revision: OLD });
    expect(w.asked).toEqual([]);
    w.refresh('web');
    await w.advance(100);
    expect(w.app('web').status.operationState.operation.sync.revision).toBe(NEW);
  });

  it('with the simulator option when argocd-cm does not set it (0: off)', async () => {
    const w = world({ reconciliationMs: 0 });
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.heads.main = NEW;
    await w.advance(600_000, 60_000);
    expect(w.app('web').status.sync.revision).toBe(OLD);
  });
});

describe("the simulated repo-server's ref cache, shared by a repository's apps", () => {
  it("moves a held app to the tip another app's refresh resolved, at its next sync's compare", async () => {
    const w = world({ argocdCm: { 'timeout.reconciliation': '0s' } });
    w.store.create(APPLICATIONS, deployedApp('web'));
    // `api` takes 5 s to sync: its sync of NEW ends after web's refresh has seen NEWER.
    w.store.create(APPLICATIONS, deployedApp('api', 'main', OLD, { 'sim.gitops-sync.dev/sync-ms': '5000' }));
    w.heads.main = NEW;
    w.refresh('api');
    await w.advance(100);
    expect(w.app('api').status.operationState.operation.sync.revision).toBe(NEW);
    w.heads.main = NEWER;
    w.refresh('web');
    await w.advance(100);
    expect(w.app('web').status.operationState.operation.sync.revision).toBe(NEWER);
    await w.advance(5000);
    // Nobody refreshed api again: the compare after its sync read NEWER from the shared cache.
    expect(w.app('api').status.operationState.operation.sync.revision).toBe(NEWER);
  });

  it('keeps a stale tip for the compare after a sync when no live resolve refreshed it', async () => {
    const w = world({ argocdCm: { 'timeout.reconciliation': '0s' } });
    w.store.create(APPLICATIONS, deployedApp('api', 'main', OLD, { 'sim.gitops-sync.dev/sync-ms': '5000' }));
    w.heads.main = NEW;
    w.refresh('api');
    await w.advance(100);
    w.heads.main = NEWER;
    await w.advance(6000);
    expect(w.app('api').status.operationState.operation.sync.revision).toBe(NEW);
    expect(w.app('api').status.sync).toEqual({ status: 'Synced', revision: NEW });
  });
});

describe('a full 40-hex SHA targetRevision', () => {
  it('is used as it is: refreshes, polls and other apps moving the branch leave it where it is', async () => {
    const w = world({ argocdCm: { 'timeout.reconciliation': '1s' } });
    w.store.create(APPLICATIONS, deployedApp('pinned', OLD));
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.heads.main = NEW;
    w.refresh('pinned');
    w.refresh('web');
    await w.advance(5000);
    expect(w.app('web').status.sync).toEqual({ status: 'Synced', revision: NEW });
    expect(w.app('pinned').status.sync).toEqual({ status: 'Synced', revision: OLD });
    expect(w.asked).not.toContain(OLD);
  });

  it('moves when the SHA in the spec moves (a spec change is compared live, no refresh needed)', async () => {
    const w = world({ argocdCm: { 'timeout.reconciliation': '0s' } });
    w.store.create(APPLICATIONS, deployedApp('pinned', OLD));
    await w.advance(100);
    w.store.update(APPLICATIONS, 'argocd', 'pinned', (a) => {
      (a.spec as { source: { targetRevision: string } }).source.targetRevision = NEW.toUpperCase();
    });
    await w.advance(100);
    expect(w.app('pinned').status.operationState.operation.sync.revision).toBe(NEW);
    await w.advance(500);
    expect(w.app('pinned').status.sync).toEqual({ status: 'Synced', revision: NEW });
  });
});

describe('ConfigMaps over the core API', () => {
  it("serves argocd-cm at /api/v1/namespaces/argocd/configmaps/argocd-cm to the orchestrator's client", async () => {
    const cluster = await startTestCluster();
    try {
      cluster.server.store.create(CONFIG_MAPS, {
        metadata: { name: 'argocd-cm', namespace: 'argocd' },
        data: { 'timeout.reconciliation': '180s' },
      });
      const got = await cluster.api.get(CONFIG_MAPS, 'argocd', 'argocd-cm');
      expect(got).toMatchObject({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        data: { 'timeout.reconciliation': '180s' },
      });
      expect(cluster.server.requests.all().at(-1)).toMatchObject({
        verb: 'get',
        resource: 'configmaps',
        namespace: 'argocd',
        name: 'argocd-cm',
      });
      await expect(cluster.api.get(CONFIG_MAPS, 'other', 'argocd-cm')).rejects.toMatchObject({
        upstreamStatus: 404,
      });
      const discovery = await fetch(`${cluster.server.url}/api/v1`, {
        headers: { authorization: 'Bearer test-admin-token' },
      }).then((r) => r.json() as Promise<{ resources: { name: string }[] }>);
      expect(discovery.resources.map((r) => r.name)).toEqual(['namespaces', 'configmaps', 'serviceaccounts']);
    } finally {
      await cluster.close();
    }
  });
});
