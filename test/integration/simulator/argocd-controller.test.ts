import { afterEach, describe, expect, it } from 'vitest';
import {
  type SimulatedController,
  startArgoCdController,
} from '../../../infra/simulator/argocd-controller.js';
import { ResourceStore, type StoredObject } from '../../../infra/simulator/resource-store.js';
import {
  APPLICATION_SETS,
  APPLICATIONS,
  GIT_REPOSITORIES,
  KUBE_RESOURCES,
} from '../../../lib/kubernetes/resources.js';
import { application, waitFor } from '../../helpers/simulator.js';

const REPO = 'https://git.example/org/platform';
const OLD = 'a'.repeat(40);
const NEW = 'b'.repeat(40);
const NEWER = 'c'.repeat(40);
const REFRESH = 'argocd.argoproj.io/refresh';

/** The parts of a simulated object these tests read. */
interface View {
  metadata: { annotations?: Record<string, string> };
  operation?: unknown;
  status: {
    sync: { status?: string; revision?: string; revisions?: string[] };
    health?: { status: string };
    reconciledAt?: string;
    conditions?: { type: string; status?: string; reason?: string }[];
    operationState: {
      phase: string;
      message: string;
      startedAt?: string;
      finishedAt?: string;
      retryCount?: number;
      operation: { sync: { revision?: string; revisions?: string[] } };
      syncResult: { revision?: string; revisions?: string[]; resources: { status: string }[] };
    };
    history: { revisions?: string[] }[];
    lastHandledReconcileAt?: string;
    artifact?: { revision: string };
  };
}

const view = (object: StoredObject): View => object as unknown as View;

function deployedApp(
  name: string,
  annotations: Record<string, string> = {},
  spec: Record<string, unknown> = {},
): StoredObject {
  return {
    ...application(
      name,
      { syncPolicy: { automated: { prune: true, selfHeal: true } }, ...spec },
      { annotations },
    ),
    status: {
      sync: { status: 'Synced', revision: OLD },
      health: { status: 'Healthy' },
      operationState: {
        operation: { sync: { revision: OLD } },
        phase: 'Succeeded',
        syncResult: { revision: OLD },
        startedAt: '2024-01-01T00:00:00Z',
        finishedAt: '2024-01-01T00:00:10Z',
      },
    },
  } as StoredObject;
}

function world(options: { heads?: Record<string, string> } = {}) {
  const store = new ResourceStore(KUBE_RESOURCES);
  let time = Date.parse('2024-06-01T12:00:00Z');
  const heads: Record<string, string> = { main: NEW, ...options.heads };
  const controller = startArgoCdController({
    store,
    resolveRevision: (repoURL, revision) => (repoURL === REPO ? heads[revision] : undefined),
    clock: { now: () => new Date(time) },
    tickMs: 0,
    syncMs: 100,
    healthMs: 50,
    retryMs: 30,
  });
  return {
    store,
    controller,
    heads,
    async advance(ms: number) {
      time += ms;
      await controller.tick();
    },
    app: (name: string) => view(store.require(APPLICATIONS, 'argocd', name)),
    refresh(name: string, value = 'normal') {
      store.update(APPLICATIONS, 'argocd', name, (a) => {
        a.metadata.annotations = { ...a.metadata.annotations, [REFRESH]: value };
      });
    },
  };
}

let controllers: SimulatedController[] = [];
afterEach(() => {
  for (const c of controllers) c.stop();
  controllers = [];
});

function started(options?: Parameters<typeof world>[0]) {
  const w = world(options);
  controllers.push(w.controller);
  return w;
}

const phases = (app: View) => ({
  phase: app.status.operationState?.phase,
  finished: app.status.operationState?.finishedAt !== undefined,
  sync: app.status.sync.status,
  health: app.status.health?.status,
});

describe('the simulated Argo CD controller', () => {
  it('removes the refresh annotation, compares at the new commit and starts an automated sync', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.refresh('web');
    await w.advance(0);
    const app = w.app('web');
    expect(app.metadata.annotations?.[REFRESH]).toBeUndefined();
    expect(app.status.sync).toEqual({ revision: NEW, status: 'OutOfSync' });
    expect(app.status.reconciledAt).toBe('2024-06-01T12:00:00Z');
    expect(app.status.operationState).toMatchObject({
      phase: 'Running',
      operation: { sync: { revision: NEW }, initiatedBy: { automated: true } },
      startedAt: '2024-06-01T12:00:00Z',
    });
    expect(app.status.operationState.finishedAt).toBeUndefined();
    expect(app.operation).toBeDefined();
  });

  it.each([
    [
      'succeed',
      [
        { phase: 'Succeeded', finished: true, sync: 'Synced', health: 'Progressing' },
        { phase: 'Succeeded', finished: true, sync: 'Synced', health: 'Healthy' },
      ],
    ],
    [
      'degrade',
      [
        { phase: 'Succeeded', finished: true, sync: 'Synced', health: 'Progressing' },
        { phase: 'Succeeded', finished: true, sync: 'Synced', health: 'Degraded' },
      ],
    ],
    [
      'missing',
      [
        { phase: 'Succeeded', finished: true, sync: 'Synced', health: 'Progressing' },
        { phase: 'Succeeded', finished: true, sync: 'Synced', health: 'Missing' },
      ],
    ],
    [
      'fail',
      [
        { phase: 'Failed', finished: true, sync: 'OutOfSync', health: 'Healthy' },
        { phase: 'Failed', finished: true, sync: 'OutOfSync', health: 'Healthy' },
      ],
    ],
    [
      'error',
      [
        { phase: 'Error', finished: true, sync: 'OutOfSync', health: 'Healthy' },
        { phase: 'Error', finished: true, sync: 'OutOfSync', health: 'Healthy' },
      ],
    ],
    [
      'hang',
      [
        { phase: 'Running', finished: false, sync: 'OutOfSync', health: 'Healthy' },
        { phase: 'Running', finished: false, sync: 'OutOfSync', health: 'Healthy' },
      ],
    ],
  ])('an app scripted to %s goes through the phases Argo CD reports', async (outcome, expected) => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web', { 'sim.gitops-sync.dev/outcome': outcome }));
    w.refresh('web');
    await w.advance(0);
    expect(phases(w.app('web'))).toEqual({
      phase: 'Running',
      finished: false,
      sync: 'OutOfSync',
      health: 'Healthy',
    });
    await w.advance(100);
    expect(phases(w.app('web'))).toEqual(expected[0]);
    await w.advance(50);
    expect(phases(w.app('web'))).toEqual(expected[1]);
    await w.advance(10_000);
    expect(phases(w.app('web'))).toEqual(expected[1]);
  });

  it('reports the result of a finished operation for the synced revision', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web', { 'sim.gitops-sync.dev/outcome': 'fail' }));
    w.refresh('web');
    await w.advance(0);
    await w.advance(100);
    const state = w.app('web').status.operationState;
    expect(state).toMatchObject({
      phase: 'Failed',
      message: 'one or more synchronization tasks completed unsuccessfully',
      finishedAt: '2024-06-01T12:00:00Z',
      syncResult: { revision: NEW },
    });
    expect(state.syncResult.resources[0]?.status).toBe('SyncFailed');
    expect(w.app('web').operation).toBeUndefined();
  });

  it('shows a retry as Running with finishedAt set, then succeeds', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web', { 'sim.gitops-sync.dev/outcome': 'retry-then-succeed' }));
    w.refresh('web');
    await w.advance(0);
    await w.advance(100);
    const retrying = w.app('web').status.operationState;
    expect(retrying).toMatchObject({ phase: 'Running', retryCount: 1 });
    expect(retrying.finishedAt).toBeDefined();
    expect(retrying.message).toMatch(
      /^one or more synchronization tasks completed unsuccessfully\. Retrying attempt #1 at \d\d:\d\d:\d\d\.$/,
    );
    await w.advance(30);
    expect(phases(w.app('web'))).toEqual({
      phase: 'Running',
      finished: false,
      sync: 'OutOfSync',
      health: 'Healthy',
    });
    await w.advance(100);
    expect(phases(w.app('web'))).toMatchObject({ phase: 'Succeeded', sync: 'Synced' });
    await w.advance(50);
    expect(phases(w.app('web')).health).toBe('Healthy');
  });

  it('fails after the scripted number of retries with the count in the message', async () => {
    const w = started();
    w.store.create(
      APPLICATIONS,
      deployedApp('web', {
        'sim.gitops-sync.dev/outcome': 'retry-then-fail',
        'sim.gitops-sync.dev/retries': '2',
      }),
    );
    w.refresh('web');
    await w.advance(0);
    for (let i = 0; i < 2; i++) {
      await w.advance(100);
      expect(w.app('web').status.operationState.retryCount).toBe(i + 1);
      await w.advance(30);
    }
    await w.advance(100);
    expect(w.app('web').status.operationState).toMatchObject({
      phase: 'Failed',
      message: 'one or more synchronization tasks completed unsuccessfully (retried 2 times).',
    });
  });

  it('honours per-app sync and health durations', async () => {
    const w = started();
    w.store.create(
      APPLICATIONS,
      deployedApp('slow', { 'sim.gitops-sync.dev/sync-ms': '1000', 'sim.gitops-sync.dev/health-ms': '0' }),
    );
    w.refresh('slow');
    await w.advance(0);
    await w.advance(999);
    expect(phases(w.app('slow')).phase).toBe('Running');
    await w.advance(1);
    expect(phases(w.app('slow'))).toMatchObject({ phase: 'Succeeded', health: 'Healthy' });
  });

  it('marks an app without automated sync OutOfSync and starts nothing', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('manual', {}, { syncPolicy: {} }));
    w.refresh('manual');
    await w.advance(0);
    expect(w.app('manual').status.sync).toEqual({ revision: NEW, status: 'OutOfSync' });
    expect(w.app('manual').status.operationState.operation.sync.revision).toBe(OLD);
    expect(w.controller.idle()).toBe(true);
  });

  it('moves an app whose manifests did not change to Synced at the new commit without an operation', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('same', { 'sim.gitops-sync.dev/outcome': 'unchanged' }));
    w.refresh('same');
    await w.advance(0);
    expect(phases(w.app('same'))).toEqual({
      phase: 'Succeeded',
      finished: true,
      sync: 'Synced',
      health: 'Healthy',
    });
    expect(w.app('same').status.sync.revision).toBe(NEW);
  });

  it('does nothing more when the refresh finds the commit already deployed', async () => {
    const w = started({ heads: { main: OLD } });
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.refresh('web');
    await w.advance(0);
    expect(w.app('web').status.sync).toEqual({ revision: OLD, status: 'Synced' });
    expect(w.app('web').status.operationState.startedAt).toBe('2024-01-01T00:00:00Z');
  });

  it('resolves every source of a multi-source app into revisions', async () => {
    const w = started({ heads: { 'v1.2.0': NEWER } });
    const spec = {
      source: undefined,
      sources: [
        { repoURL: REPO, targetRevision: 'v1.2.0', path: 'charts/gateway' },
        { repoURL: REPO, targetRevision: 'main', ref: 'values' },
      ],
    };
    w.store.create(APPLICATIONS, deployedApp('gateway', {}, spec));
    w.refresh('gateway');
    await w.advance(0);
    expect(w.app('gateway').status.sync).toEqual({ revisions: [NEWER, NEW], status: 'OutOfSync' });
    expect(w.app('gateway').status.operationState.operation.sync).toEqual({ revisions: [NEWER, NEW] });
    await w.advance(100);
    expect(w.app('gateway').status.operationState.syncResult.revisions).toEqual([NEWER, NEW]);
    expect(w.app('gateway').status.history.at(-1)?.revisions).toEqual([NEWER, NEW]);
  });

  it('reports a revision it cannot resolve as a ComparisonError with sync status Unknown', async () => {
    const w = started();
    w.store.create(
      APPLICATIONS,
      deployedApp('lost', {}, { source: { repoURL: REPO, targetRevision: 'gone', path: '.' } }),
    );
    w.refresh('lost');
    await w.advance(0);
    expect(w.app('lost').status.sync.status).toBe('Unknown');
    expect(w.app('lost').status.conditions?.[0]?.type).toBe('ComparisonError');
    expect(w.app('lost').metadata.annotations?.[REFRESH]).toBeUndefined();
  });

  it('syncs a commit pushed during a running operation once that operation ends', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.refresh('web');
    await w.advance(0);
    w.heads.main = NEWER;
    w.refresh('web');
    await w.advance(10);
    expect(w.app('web').status.sync).toEqual({ revision: NEWER, status: 'OutOfSync' });
    expect(w.app('web').status.operationState.operation.sync.revision).toBe(NEW);
    await w.advance(90);
    expect(w.app('web').status.operationState).toMatchObject({
      phase: 'Running',
      operation: { sync: { revision: NEWER } },
    });
    await w.advance(100);
    expect(phases(w.app('web'))).toMatchObject({ phase: 'Succeeded', sync: 'Synced' });
  });

  it('does not retry a failed commit on a later refresh, as Argo CD auto-sync does not', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web', { 'sim.gitops-sync.dev/outcome': 'fail' }));
    w.refresh('web');
    await w.advance(0);
    await w.advance(100);
    const failedAt = w.app('web').status.operationState.finishedAt;
    w.refresh('web');
    await w.advance(1000);
    expect(w.app('web').status.operationState).toMatchObject({ phase: 'Failed', finishedAt: failedAt });
  });

  it('leaves the refresh annotation of an app scripted to ignore refreshes', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('stuck', { 'sim.gitops-sync.dev/ignore-refresh': 'true' }));
    w.refresh('stuck');
    await w.advance(1000);
    expect(w.app('stuck').metadata.annotations?.[REFRESH]).toBe('normal');
  });

  it('removes an ApplicationSet refresh annotation after a tick', async () => {
    const w = started();
    w.store.create(APPLICATION_SETS, {
      metadata: {
        name: 'services',
        namespace: 'argocd',
        annotations: { 'argocd.argoproj.io/application-set-refresh': 'true' },
      },
      spec: { generators: [] },
    });
    await w.advance(0);
    const appSet = view(w.store.require(APPLICATION_SETS, 'argocd', 'services'));
    expect(appSet.metadata.annotations?.['argocd.argoproj.io/application-set-refresh']).toBeUndefined();
    expect(appSet.status.conditions?.[0]?.type).toBe('ResourcesUpToDate');
  });

  it('handles a Flux reconcile request and reports the artifact revision', async () => {
    const w = started();
    w.store.create(GIT_REPOSITORIES, {
      metadata: {
        name: 'platform',
        namespace: 'flux-system',
        annotations: { 'reconcile.fluxcd.io/requestedAt': '2024-06-01 12:00:00.1 +0000 UTC' },
      },
      spec: { url: REPO, ref: { branch: 'main' }, interval: '5m' },
    });
    await w.advance(0);
    const repo = view(w.store.require(GIT_REPOSITORIES, 'flux-system', 'platform'));
    expect(repo.status.lastHandledReconcileAt).toBe('2024-06-01 12:00:00.1 +0000 UTC');
    expect(repo.status.artifact?.revision).toBe(`main@sha1:${NEW}`);
    expect(repo.status.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', reason: 'Succeeded' });
  });

  it('stops cleanly: after stop() nothing changes any more', async () => {
    const w = started();
    w.store.create(APPLICATIONS, deployedApp('web'));
    w.refresh('web');
    await w.advance(0);
    w.controller.stop();
    await w.advance(10_000);
    expect(phases(w.app('web')).phase).toBe('Running');
  });

  it('runs on its own timer when given a tick interval', async () => {
    const store = new ResourceStore(KUBE_RESOURCES);
    const controller = startArgoCdController({
      store,
      resolveRevision: () => NEW,
      tickMs: 5,
      syncMs: 10,
      healthMs: 10,
    });
    controllers.push(controller);
    store.create(APPLICATIONS, deployedApp('web', { [REFRESH]: 'normal' }));
    await waitFor(
      () =>
        view(store.require(APPLICATIONS, 'argocd', 'web')).status.health?.status === 'Healthy' &&
        controller.idle(),
    );
    expect(view(store.require(APPLICATIONS, 'argocd', 'web')).status.operationState.syncResult.revision).toBe(
      NEW,
    );
  });
});
