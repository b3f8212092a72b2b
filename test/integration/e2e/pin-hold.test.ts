import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../infra/simulator/resource-store.js';
import { FOLLOWS_ANNOTATION, firstPinPatch, movePinPatch } from '../../../lib/argocd/pin.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { APPLICATIONS, CONFIG_MAPS } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { waitFor } from '../../helpers/simulator.js';
import { signedWorldPush } from '../../helpers/world-push.js';

// An ExternalSecret whose secret does not exist: the preflight blocks the commit (secret policy block).
const BLOCKED = `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: { name: hold-db, namespace: e2e }
spec:
  secretStoreRef: { kind: ClusterSecretStore, name: aws-secrets-manager }
  target: { name: hold-db }
  data:
    - secretKey: password
      remoteRef: { key: e2e/hold/does-not-exist }
`;

interface AppView {
  metadata: { annotations?: Record<string, string> };
  spec: { source: { targetRevision: string } };
  status?: {
    sync?: { status?: string; revision?: string };
    operationState?: { phase?: string; operation?: { sync?: { revision?: string } } };
  };
}

describe('a blocked commit: advisory holds leak through Argo CD polling, a pin holds', () => {
  let stack: TestStack;
  let hubApi: ClusterApi;
  let before = '';
  let blocked = '';
  let rollout: Record<string, unknown>;
  const app = (name: string): AppView =>
    stack.world?.fleet.servers.get('hub')?.store.require(APPLICATIONS, 'argocd', name) as unknown as AppView;

  beforeAll(async () => {
    stack = await startTestStack();
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const hub = world.fleet.servers.get('hub');
    hubApi = createClusterClients(world.fleet.fleetConfig, {
      secrets: { getSecretString: () => Promise.reject(new Error('no secrets here')) },
      retry: false,
    }).get('hub') as ClusterApi;
    for (const name of ['hold-advisory', 'hold-pinned']) {
      hub?.store.create(APPLICATIONS, {
        metadata: { name, namespace: 'argocd', annotations: { 'argocd.argoproj.io/refresh': 'normal' } },
        spec: {
          project: 'e2e',
          source: { repoURL: world.repoUrl('platform'), path: 'apps/e2e-hold', targetRevision: 'main' },
          destination: { name: 'spoke-a', namespace: 'e2e' },
          syncPolicy: { automated: { prune: true } },
        },
      } as StoredObject);
    }
    // Both settle at the branch's tip; then the orchestrator's first pin (through the cluster API).
    await waitFor(() =>
      ['hold-advisory', 'hold-pinned'].every((n) => app(n).status?.sync?.status === 'Synced'),
    );
    before = app('hold-pinned').status?.sync?.revision ?? '';
    const patch = firstPinPatch(app('hold-pinned'), [world.repoUrl('platform')]);
    expect(patch).toBeDefined();
    await hubApi.mergePatch(APPLICATIONS, 'argocd', 'hold-pinned', patch ?? {});

    const commit = await world.commit(
      'platform',
      { 'apps/e2e-hold/externalsecret.yaml': BLOCKED },
      'e2e: hold',
    );
    blocked = commit.after;
    const delivery = signedWorldPush(world, commit, 'e2e: hold');
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    rollout = await stack.rolloutWhenDone(blocked);
  }, 60_000);
  afterAll(async () => stack?.close());

  it('blocks both apps (the pinned one matched by the branch it follows) and leaves both where they were', () => {
    const apps = rollout.apps as { name: string; state: string }[];
    expect(apps.filter((a) => a.name.startsWith('hold-')).map((a) => [a.name, a.state])).toEqual([
      ['hold-advisory', 'blocked'],
      ['hold-pinned', 'blocked'],
    ]);
    expect(app('hold-pinned')).toMatchObject({
      metadata: { annotations: { [FOLLOWS_ANNOTATION]: 'main' } },
      spec: { source: { targetRevision: before } },
    });
    expect(app('hold-advisory').status?.sync?.revision).toBe(before);
  });

  it('once Argo CD polls, the advisory app syncs the blocked commit and the pinned one stays put', async () => {
    await hubApi.mergePatch(CONFIG_MAPS, 'argocd', 'argocd-cm', { data: { 'timeout.reconciliation': '1s' } });
    await waitFor(() => app('hold-advisory').status?.operationState?.operation?.sync?.revision === blocked, {
      timeoutMs: 10_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(app('hold-pinned').status?.sync).toEqual({ status: 'Synced', revision: before });
    expect(app('hold-pinned').status?.operationState?.operation?.sync?.revision).toBe(before);
  });

  it('moving the pin to the commit (the release) is what syncs the pinned app, with no refresh', async () => {
    await hubApi.mergePatch(
      APPLICATIONS,
      'argocd',
      'hold-pinned',
      movePinPatch(app('hold-pinned'), 0, blocked) ?? {},
    );
    await waitFor(() => app('hold-pinned').status?.sync?.revision === blocked && app('hold-pinned'), {
      timeoutMs: 10_000,
    });
    expect(app('hold-pinned').status?.operationState?.operation?.sync?.revision).toBe(blocked);
    expect(app('hold-pinned').metadata.annotations?.['argocd.argoproj.io/refresh']).toBeUndefined();
  });
});
