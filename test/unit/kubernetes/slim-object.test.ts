import { describe, expect, it } from 'vitest';
import { realisticBulk } from '../../../infra/simulator/realistic-status.js';
import { parseApplication } from '../../../lib/argocd/application.js';
import { syncFailures } from '../../../lib/argocd/sync-failures.js';
import { observeApplication } from '../../../lib/argocd/sync-state.js';
import { readApplication } from '../../../lib/audit/application.js';
import type { KubeObject } from '../../../lib/kubernetes/cluster-api.js';
import { slimApplication, slimForRefresh, slimForTrack } from '../../../lib/kubernetes/slim-object.js';
import { deployObservations } from '../../../lib/reconcile/observations.js';
import { liveVerdict } from '../../../lib/rollouts/live-verdict.js';

const sha = 'a'.repeat(40);

function realApp(): KubeObject {
  const bulk = realisticBulk('svc-1', 'https://git.example/gitops.git');
  return {
    metadata: {
      name: 'svc-1',
      namespace: 'argocd',
      uid: 'u-1',
      resourceVersion: '7',
      annotations: {
        'argocd.argoproj.io/manifest-generate-paths': '.',
        'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(5000),
      },
      managedFields: bulk.managedFields,
    },
    spec: {
      source: { repoURL: 'https://git.example/gitops.git', path: 'apps/svc-1', targetRevision: 'main' },
      destination: { name: 'in-cluster', namespace: 'svc-1' },
      syncPolicy: { automated: { prune: true } },
    },
    status: {
      ...bulk.status,
      sync: { status: 'Synced', revision: sha },
      health: { status: 'Healthy' },
      operationState: {
        ...(bulk.status.operationState as object),
        phase: 'Succeeded',
        finishedAt: '2026-11-30T12:01:00Z',
        operation: { sync: { revision: sha }, initiatedBy: { automated: true } },
        syncResult: {
          ...((bulk.status.operationState as { syncResult: object }).syncResult as object),
          resources: [
            ...(
              bulk.status.operationState as { syncResult: { resources: object[] } }
            ).syncResult.resources.slice(1),
            {
              group: 'apps',
              kind: 'Deployment',
              name: 'web',
              status: 'SyncFailed',
              message: 'admission webhook denied the request',
            },
          ],
          revision: sha,
        },
      },
      conditions: [{ type: 'SyncError', message: 'boom' }],
    },
  };
}

describe('slimApplication', () => {
  it('drops the bulk: a ~25 KB Application keeps under a tenth of its size', () => {
    const app = realApp();
    const full = JSON.stringify(app).length;
    const slim = JSON.stringify(slimApplication(app)).length;
    expect(full).toBeGreaterThan(20_000);
    expect(slim).toBeLessThan(full / 3);
    const kept = slimApplication(app) as unknown as {
      metadata: Record<string, unknown>;
      status: { operationState: { syncResult: Record<string, unknown> }; summary?: unknown };
    };
    expect(kept.metadata.managedFields).toBeUndefined();
    expect(kept.metadata.annotations).toEqual({ 'argocd.argoproj.io/manifest-generate-paths': '.' });
    expect(kept.status.operationState.syncResult.revision).toBe(sha);
    expect(kept.status.operationState.syncResult.resources).toHaveLength(1);
    expect(kept.status.summary).toBeUndefined();
  });

  it('keeps what tracking, matching, the audit and reconcile read', () => {
    const app = realApp();
    const slim = slimApplication(app);
    expect(observeApplication(slim, sha)).toEqual(observeApplication(app, sha));
    expect(readApplication(slim, 'argocd')).toEqual(readApplication(app, 'argocd'));
    expect(deployObservations(slim, false)).toEqual(deployObservations(app, false));
    const state = (o: KubeObject) => (o.status as { operationState: unknown }).operationState;
    expect(syncFailures(state(slim))).toEqual(syncFailures(state(app)));
    expect(syncFailures(state(app)).total).toBe(1);
    expect(slim.spec).toBe(app.spec);
    expect(slim.metadata.uid).toBe('u-1');
    expect(slim.metadata.resourceVersion).toBe('7');
  });

  it('keeps for fan-out only what the live verdict and the match read, a tenth of the slim size', () => {
    const app = realApp();
    const lean = slimForRefresh(app);
    expect(JSON.stringify(lean).length).toBeLessThan(JSON.stringify(slimApplication(app)).length / 3);
    const status = lean.status as Record<string, unknown>;
    expect(status.resources).toBeUndefined();
    expect(status.history).toBeUndefined();
    expect((status.operationState as { syncResult: unknown }).syncResult).toEqual({ revision: sha });
    const object = (raw: KubeObject) => {
      const parsed = parseApplication(raw);
      if (!parsed.ok) throw new Error('unparsable');
      return { cluster: 'hub', kind: 'Application' as const, raw, value: parsed.value };
    };
    for (const target of [sha, 'b'.repeat(40)]) {
      expect(liveVerdict(object(lean), target, undefined)).toEqual(
        liveVerdict(object(app), target, undefined),
      );
    }
    expect(parseApplication(lean)).toEqual(parseApplication(app));
  });

  it('keeps for tracking the sync state and the failed results, without per-resource status or history', () => {
    const app = realApp();
    const lean = slimForTrack(app);
    const status = lean.status as Record<string, unknown>;
    expect(status.resources).toBeUndefined();
    expect(status.history).toBeUndefined();
    expect(observeApplication(lean, sha)).toEqual(observeApplication(app, sha));
    expect(observeApplication(lean, 'b'.repeat(40))).toEqual(observeApplication(app, 'b'.repeat(40)));
    const state = (o: KubeObject) => (o.status as { operationState: unknown }).operationState;
    expect(syncFailures(state(lean))).toEqual(syncFailures(state(app)));
  });
});

describe('the lean slims', () => {
  // Each is the full slim less what its reader never reads, built without copying the dropped parts first.
  const withoutDetail = (full: KubeObject, failedResults: boolean) => {
    if (full.status === undefined) return full;
    const { resources: _r, history: _h, ...status } = full.status as Record<string, unknown>;
    const op = status.operationState as { syncResult?: { resources?: unknown } } | undefined;
    if (!failedResults && op?.syncResult !== undefined) {
      const { resources: _failed, ...result } = op.syncResult;
      status.operationState = { ...op, syncResult: result };
    }
    return { ...full, status };
  };
  const shapes = (): KubeObject[] => {
    const app = realApp();
    const status = app.status as Record<string, unknown>;
    const { operationState: _op, ...noOperation } = status;
    const op = status.operationState as Record<string, unknown>;
    const { syncResult: _sr, ...noResult } = op;
    return [
      app,
      { ...app, status: noOperation },
      { ...app, status: { ...status, operationState: noResult } },
      { ...app, status: { ...status, operationState: { ...op, syncResult: 'odd' } } },
      { ...app, status: { ...status, resources: 'odd', history: [1, { id: 2, source: {} }] } },
      { metadata: { name: 'bare' } },
    ];
  };

  it.each([
    ['tracking: the full slim without per-resource status and history', slimForTrack, true],
    ['fan-out: the full slim without those and without the failed results', slimForRefresh, false],
  ] as const)('for %s, keys in the same order', (_, lean, failedResults) => {
    for (const app of shapes()) {
      const slim = lean(app);
      const expected = withoutDetail(slimApplication(app), failedResults);
      expect(slim).toEqual(expected);
      expect(JSON.stringify(slim)).toBe(JSON.stringify(expected));
    }
  });
});
