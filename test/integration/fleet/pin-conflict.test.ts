import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { firstPinPatch, releasePinPatch, unpinPatch } from '../../../lib/argocd/pin.js';
import { UpstreamError } from '../../../lib/errors.js';
import { createFleetGateway } from '../../../lib/fleet/fleet-gateway.js';
import type { FleetCluster } from '../../../lib/fleet/gateway.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { canonicalRepoKey } from '../../../lib/matching/repo-url.js';
import { startTestCluster, type TestCluster } from '../../helpers/simulator.js';

/**
 * `control: pin` on a multi-source Application: a JSON merge patch replaces `spec.sources` whole, so the
 * patch is built from the app as it was listed. Another writer editing a source in between (an operator's
 * `kubectl edit`, an ApplicationSet) must not be overwritten by that stale copy: the patch carries the
 * resourceVersion it was read at, the API server answers 409, and the gateway reads the app again and sends
 * the patch rebuilt from it. Against the simulated API server (which enforces the precondition as Kubernetes does).
 */
const REPO = 'https://github.com/acme/platform';
const VALUES = 'https://github.com/acme/values';
const SYNCED = 'a'.repeat(40);
const PUSHED = 'b'.repeat(40);
const target = { cluster: 'hub', kind: 'Application' as const, namespace: 'argocd', name: 'web' };

type Sources = { repoURL: string; targetRevision?: string; helm?: { valueFiles: string[] } }[];

describe('pin patches of a multi-source app edited between the LIST and the PATCH', () => {
  let cluster: TestCluster;
  let hub: FleetCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ name: 'hub' });
    const gateway = createFleetGateway(
      cluster.fleet,
      createClusterClients(cluster.fleet, { secrets: { getSecretString: async () => '' } }),
      4,
    );
    hub = gateway.cluster('hub') as FleetCluster;
  });
  afterAll(async () => cluster?.close());
  beforeEach(() => {
    if (cluster.server.store.get(APPLICATIONS, 'argocd', 'web') !== undefined)
      cluster.server.store.delete(APPLICATIONS, 'argocd', 'web');
    cluster.server.store.create(APPLICATIONS, {
      metadata: { name: 'web', namespace: 'argocd' },
      spec: {
        project: 'default',
        sources: [
          { repoURL: REPO, path: 'apps/web', targetRevision: 'main' },
          { repoURL: VALUES, targetRevision: 'release', helm: { valueFiles: ['values.yaml'] } },
        ],
        destination: { name: 'in-cluster', namespace: 'web' },
      },
      status: { sync: { status: 'Synced', revisions: [SYNCED, 'c'.repeat(40)] } },
    });
  });

  const listed = async () => (await hub.list('Application', 'refresh'))[0];
  const stored = () =>
    cluster.server.store.get(APPLICATIONS, 'argocd', 'web') as unknown as {
      metadata: { annotations?: Record<string, string> };
      spec: { sources: Sources };
    };
  /** Another writer adds a values file to the second source. */
  const editOtherSource = () => {
    const current = cluster.server.store.get(APPLICATIONS, 'argocd', 'web');
    if (current === undefined) throw new Error('no app');
    const spec = structuredClone(current.spec) as { sources: Sources };
    spec.sources[1] = {
      ...spec.sources[1],
      helm: { valueFiles: ['values.yaml', 'values-prod.yaml'] },
    } as Sources[number];
    cluster.server.store.replace(APPLICATIONS, { ...current, spec });
  };
  const calls = () =>
    cluster.server.requests
      .all()
      .filter((r) => r.resource === 'applications')
      .map((r) => r.verb);

  it("keeps the other source's edit when the release's pin move was built from a stale listing", async () => {
    const raw = await listed();
    editOtherSource();
    const repoKey = canonicalRepoKey(REPO) as string;
    const build = (app: unknown) => releasePinPatch(app, [REPO], repoKey, PUSHED);
    const patch = build(raw);
    if (patch === undefined) throw new Error('nothing to pin');
    cluster.server.requests.reset();
    await hub.patch(target, patch, build);
    const sources = stored().spec.sources;
    expect(sources[0]?.targetRevision).toBe(PUSHED);
    expect(sources[1]?.helm?.valueFiles).toEqual(['values.yaml', 'values-prod.yaml']);
    // The stale patch was refused, the app read again, the rebuilt patch applied.
    expect(calls()).toEqual(['patch', 'get', 'patch']);
  });

  it('is refused with the 409 when no rebuild is given (never written over the edit)', async () => {
    const raw = await listed();
    editOtherSource();
    const patch = firstPinPatch(raw, [REPO]);
    if (patch === undefined) throw new Error('nothing to pin');
    const refused = await hub.patch(target, patch).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpstreamError);
    expect((refused as UpstreamError).upstreamStatus).toBe(409);
    expect(stored().spec.sources[1]?.helm?.valueFiles).toEqual(['values.yaml', 'values-prod.yaml']);
    expect(stored().spec.sources[0]?.targetRevision).toBe('main');
  });

  it('unpins over a status write that moved the resourceVersion (one more read, nothing lost)', async () => {
    const pin = firstPinPatch(await listed(), [REPO]);
    if (pin === undefined) throw new Error('nothing to pin');
    await hub.patch(target, pin);
    const raw = await listed();
    const current = cluster.server.store.get(APPLICATIONS, 'argocd', 'web');
    if (current === undefined) throw new Error('no app');
    cluster.server.store.replace(APPLICATIONS, {
      ...current,
      status: { sync: { status: 'OutOfSync', revisions: [SYNCED, 'c'.repeat(40)] } },
    });
    const patch = unpinPatch(raw);
    if (patch === undefined) throw new Error('not pinned');
    cluster.server.requests.reset();
    await hub.patch(target, patch, unpinPatch);
    expect(stored().spec.sources.map((s) => s.targetRevision)).toEqual(['main', 'release']);
    expect(stored().metadata.annotations?.['gitops-sync.io/follows']).toBeUndefined();
    expect(calls()).toEqual(['patch', 'get', 'patch']);
  });
});
