import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../infra/simulator/resource-store.js';
import { FOLLOWS_ANNOTATION } from '../../../lib/argocd/pin.js';
import type { FleetConfig } from '../../../lib/fleet/fleet-config.js';
import { APPLICATIONS, CONFIG_MAPS } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { waitFor } from '../../helpers/simulator.js';
import { signedWorldPush } from '../../helpers/world-push.js';

interface AppView {
  metadata: { annotations?: Record<string, string> };
  spec: { source: { targetRevision: string } };
  status?: { sync?: { status?: string; revision?: string } };
}

const CONFIG = (n: number) => `apiVersion: v1
kind: ConfigMap
metadata: { name: hold-config, namespace: e2e }
data: { version: "${n}" }
`;

/**
 * `control: pin` with waves, on an Argo CD that polls Git every second: the orchestrator pins the app of
 * the waiting wave where it is synced, so polling cannot take it to the commit early, then moves the pin
 * when the wave opens.
 */
describe('a pinned repository: a waiting wave holds for real while Argo CD polls', () => {
  let stack: TestStack;
  const app = (name: string): AppView =>
    stack.world?.fleet.servers.get('hub')?.store.require(APPLICATIONS, 'argocd', name) as unknown as AppView;

  beforeAll(async () => {
    stack = await startTestStack(
      {},
      {
        fleetOverlay: (fleet: FleetConfig) => ({
          ...fleet,
          repositories: fleet.repositories.map((r) =>
            /\/platform(\.git)?$/.test(r.url) ? { ...r, control: 'pin' as const } : r,
          ),
          waves: [
            { name: 'canary', clusters: ['spoke-a'], soakMs: 4_000, maxUnhealthy: { percent: 100 } },
            { name: 'rest', soakMs: 0, maxUnhealthy: { percent: 100 } },
          ],
        }),
      },
    );
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const hub = world.fleet.servers.get('hub');
    for (const [name, destination] of [
      ['hold-canary', 'spoke-a'],
      ['hold-rest', 'spoke-b'],
    ] as const) {
      hub?.store.create(APPLICATIONS, {
        metadata: { name, namespace: 'argocd', annotations: { 'argocd.argoproj.io/refresh': 'normal' } },
        spec: {
          project: 'e2e',
          source: { repoURL: world.repoUrl('platform'), path: 'apps/e2e-pin', targetRevision: 'main' },
          destination: { name: destination, namespace: 'e2e' },
          syncPolicy: { automated: { prune: true } },
        },
      } as StoredObject);
    }
    await world.commit('platform', { 'apps/e2e-pin/config.yaml': CONFIG(0) }, 'e2e: pin base');
    await waitFor(() => ['hold-canary', 'hold-rest'].every((n) => app(n).status?.sync?.status === 'Synced'));
  }, 60_000);
  afterAll(async () => stack?.close());

  it('pins the waiting app where it is, keeps it there through polling, and moves the pin when its wave opens', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const before = app('hold-rest').status?.sync?.revision ?? '';
    const commit = await world.commit('platform', { 'apps/e2e-pin/config.yaml': CONFIG(1) }, 'e2e: pin');
    const delivery = signedWorldPush(world, commit, 'e2e: pin');
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);

    // The canary moves to the commit; the rest app is pinned where it was synced (by its own cluster's work
    // item, which may run after the canary's sync under load).
    await waitFor(() => app('hold-canary').status?.sync?.revision === commit.after, { timeoutMs: 15_000 });
    await waitFor(() => app('hold-rest').metadata.annotations?.[FOLLOWS_ANNOTATION] !== undefined, {
      timeoutMs: 10_000,
    });
    expect(app('hold-rest')).toMatchObject({
      metadata: { annotations: { [FOLLOWS_ANNOTATION]: 'main' } },
      spec: { source: { targetRevision: before } },
    });
    // The hub's Argo CD polls Git every second from now on (not before the pin: Argo CD's poll racing the
    // fan-out to a push is the limit docs/release-control.md states; the default poll is every 180 s).
    const hub = world.fleet.servers.get('hub');
    const cm = hub?.store.require(CONFIG_MAPS, 'argocd', 'argocd-cm') as StoredObject;
    hub?.store.replace(CONFIG_MAPS, { ...cm, data: { 'timeout.reconciliation': '1s' } } as StoredObject);
    // During the canary's soak, polling (every second) leaves the pinned app where it is.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(app('hold-rest').status?.sync?.revision).toBe(before);

    // The soak ends, the rest wave opens: the pin moves to the commit and Argo CD syncs it.
    await waitFor(() => app('hold-rest').status?.sync?.revision === commit.after, { timeoutMs: 20_000 });
    expect(app('hold-rest').spec.source.targetRevision).toBe(commit.after);
    expect(app('hold-canary').spec.source.targetRevision).toBe(commit.after);
    const rollout = (await stack.get(`/rollouts/${commit.after}`)).body as {
      apps: { name: string; state: string; wave?: string }[];
    };
    expect(rollout.apps.find((a) => a.name === 'hold-rest')).toMatchObject({ wave: 'rest' });
  }, 60_000);

  it('unpin restores every followed revision (the fanout function does it for the API)', async () => {
    const answer = await fetch(`${stack.url}/unpin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ repo: stack.world?.repoUrl('platform') }),
    });
    expect(answer.status).toBe(202);
    await waitFor(() => app('hold-rest').spec.source.targetRevision === 'main', { timeoutMs: 10_000 });
    for (const name of ['hold-rest', 'hold-canary']) {
      expect(app(name).spec.source.targetRevision).toBe('main');
      expect(app(name).metadata.annotations?.[FOLLOWS_ANNOTATION]).toBeUndefined();
    }
  }, 30_000);

  it('leaves an ApplicationSet-owned app unpinned, and the audit says why (pin-reverted-by-owner)', async () => {
    // The default world's previews ApplicationSet has no ignoreApplicationDifferences for targetRevision.
    const preview = app('web-preview');
    expect(preview.metadata.annotations?.[FOLLOWS_ANNOTATION]).toBeUndefined();
    expect(preview.spec.source.targetRevision).toBe('main');
    await stack.app.reconcile();
    const findings = (await stack.get('/findings?rule=pin-reverted-by-owner')).body as {
      items: { cluster: string; app: string; rule: string; severity: string; message: string }[];
    };
    const found = findings.items.find((f) => f.app === 'web-preview');
    expect(found).toMatchObject({ cluster: 'hub', rule: 'pin-reverted-by-owner', severity: 'high' });
    expect(found?.message).toContain('ApplicationSet previews');
    // Apps no owner rewrites are not reported.
    expect(findings.items.find((f) => f.app === 'hold-rest')).toBeUndefined();
  }, 60_000);
});
