import { describe, expect, it } from 'vitest';
import type { StoredApp } from '../../../lib/rollouts/app-model.js';
import { liveVerdict } from '../../../lib/rollouts/live-verdict.js';
import { decideApp } from '../../../lib/rollouts/track-decide.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

const application = (revision: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'argocd' },
  spec: { source: { repoURL: 'https://git.example/org/gitops', path: 'apps/web', targetRevision: 'main' } },
  status: {
    sync: { status: 'Synced', revision },
    health: { status: 'Healthy' },
    operationState: { phase: 'Succeeded', operation: { sync: { revision } }, syncResult: { revision } },
  },
});

const indexed = (revision: string) => ({
  cluster: 'hub',
  kind: 'Application' as const,
  namespace: 'argocd',
  name: 'web',
  raw: application(revision),
});

describe('an app whose ref moved on to a later commit', () => {
  it('is superseded at fan-out only when it is live at the later commit', () => {
    expect(liveVerdict(indexed(C) as never, B, C)).toMatchObject({ kind: 'superseded', head: C });
    // At an older commit: refreshed (the caller asks whether the later commit's rollout owns it).
    expect(liveVerdict(indexed(A) as never, B, C)).toEqual({ kind: 'refresh', revision: A, head: C });
    expect(liveVerdict(indexed(B) as never, B, C)).toEqual({ kind: 'at-commit', revision: B });
    expect(liveVerdict(indexed(A) as never, B, B)).toEqual({ kind: 'refresh', revision: A });
  });

  const refreshed: StoredApp = {
    cluster: 'hub',
    namespace: 'argocd',
    name: 'web',
    kind: 'Application',
    state: 'refreshed',
    version: 3,
    fromRevision: A,
  };
  const context = (owned: boolean) => ({
    sha: B,
    pastDeadline: false,
    now: new Date('2026-09-01T10:00:00Z'),
    live: { objects: new Map([['Application/argocd/web', application(C)]]) },
    head: async () => C,
    ref: 'refs/heads/main',
    deps: {},
    ownedLater: async (later: string) => owned && later === C,
  });

  it('ends synced at the later commit, saying so, when no later rollout took it over', async () => {
    const change = await decideApp(refreshed, context(false));
    expect(change).toMatchObject({ state: 'synced', revision: C });
    expect(change?.message).toBe(
      `synced at ${C.slice(0, 12)}, a later commit of refs/heads/main that carries this push`,
    );
    expect(change?.finishedAt).toBe('2026-09-01T10:00:00.000Z');
  });

  it('is superseded when the later commit has a rollout that owns it', async () => {
    expect(await decideApp(refreshed, context(true))).toMatchObject({ state: 'superseded', revision: C });
  });
});
