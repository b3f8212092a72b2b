import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../infra/simulator/resource-store.js';
import type { Finding } from '../../../lib/audit/types.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { CONFIG_MAPS } from '../../../lib/kubernetes/resources.js';
import { createUngatedInstances, readArgoGates } from '../../../lib/reconcile/argocd-gate.js';
import { startTestCluster } from '../../helpers/simulator.js';
import { type ReconcileWorld, startReconcileWorld } from '../reconcile/harness.js';

const cm = (data: Record<string, string>) => ({
  resource: CONFIG_MAPS,
  object: { metadata: { name: 'argocd-cm', namespace: 'argocd' }, data } as StoredObject,
});

describe('the reconcile pass reads each Argo CD instance’s argocd-cm (the polling gate)', () => {
  let world: ReconcileWorld;
  const polling = async (): Promise<Finding[]> =>
    (await world.findings.loadOpen()).filter((f) => f.rule === 'argocd-polling-on');

  beforeAll(async () => {
    world = await startReconcileWorld({
      repos: { gitops: { files: { 'apps/web/config.yaml': 'a: 1\n' } } },
      clusters: ['hub-default', 'hub-poll', 'hub-gated', 'hub-missing'].map((name) => ({
        name,
        argocd: { namespace: 'argocd' },
      })),
      objects: () => ({
        'hub-default': [cm({ 'application.instanceLabelKey': 'app.kubernetes.io/instance' })],
        'hub-poll': [cm({ 'timeout.reconciliation': '3m' })],
        'hub-gated': [cm({ 'timeout.reconciliation': '0s' })],
      }),
    });
  }, 60_000);
  afterAll(async () => world?.close());

  it('raises argocd-polling-on (high) unless timeout.reconciliation is 0s; a missing ConfigMap is a note', async () => {
    const report = await world.pass();
    expect(report.clusters.unread).toEqual([]);
    const found = await polling();
    expect(
      found.map((f) => ({
        cluster: f.cluster,
        namespace: f.namespace,
        severity: f.severity,
        evidence: f.evidence,
      })),
    ).toEqual([
      {
        cluster: 'hub-default',
        namespace: 'argocd',
        severity: 'high',
        evidence: { 'timeout.reconciliation': '180s (default)' },
      },
      {
        cluster: 'hub-poll',
        namespace: 'argocd',
        severity: 'high',
        evidence: { 'timeout.reconciliation': '3m' },
      },
    ]);
    const gets = world.sim.servers
      .get('hub-missing')
      ?.requests.all()
      .filter((r) => r.resource === 'configmaps');
    expect(gets).toMatchObject([{ verb: 'get', namespace: 'argocd', name: 'argocd-cm' }]);
  });

  it('lists the polling instances for a rollout’s `ungated`, with the reason', async () => {
    const ungated = await createUngatedInstances({ fleet: world.fleet, findings: world.findings })();
    expect(ungated).toEqual([
      { cluster: 'hub-default', namespace: 'argocd', reason: expect.stringContaining('is 180s (default)') },
      {
        cluster: 'hub-poll',
        namespace: 'argocd',
        reason: expect.stringContaining('is 3m: Argo CD polls Git'),
      },
    ]);
  });

  it('resolves the finding once polling is off, and keeps it while argocd-cm cannot be read', async () => {
    world.sim.servers.get('hub-poll')?.store.update(CONFIG_MAPS, 'argocd', 'argocd-cm', (o) => {
      o.data = { 'timeout.reconciliation': '0' };
    });
    world.sim.servers.get('hub-default')?.store.delete(CONFIG_MAPS, 'argocd', 'argocd-cm');
    world.clock.advance(60_000);
    await world.pass();
    expect((await polling()).map((f) => f.cluster)).toEqual(['hub-default']);
    const ungated = await createUngatedInstances({ fleet: world.fleet, findings: world.findings })();
    expect(ungated.map((u) => u.cluster)).toEqual(['hub-default']);
  });
});

describe('readArgoGates', () => {
  it('notes a 403 on argocd-cm without a finding and without failing', async () => {
    const cluster = await startTestCluster({
      tokens: {
        reader: {
          user: 'reader',
          grants: [{ rules: [{ apiGroups: ['argoproj.io'], resources: ['*'], verbs: ['*'] }] }],
        },
      },
    });
    try {
      cluster.server.store.create(CONFIG_MAPS, {
        metadata: { name: 'argocd-cm', namespace: 'argocd' },
        data: { 'timeout.reconciliation': '180s' },
      });
      const fleet = {
        ...cluster.fleet,
        clusters: cluster.fleet.clusters.map((c) => ({ ...c, auth: { token: 'reader' } })),
      };
      const clients = createClusterClients(fleet, {
        secrets: { getSecretString: () => Promise.reject(new Error('none')) },
        retry: false,
      });
      const gates = await readArgoGates(fleet, clients, 2);
      expect(gates.findings).toEqual([]);
      expect(gates.gates).toEqual([
        { cluster: 'test', namespace: 'argocd', gated: undefined, reason: expect.stringContaining('403') },
      ]);
      expect(gates.notes).toMatchObject([
        { kind: 'skipped', rule: 'argocd-polling-on', cluster: 'test', app: '' },
      ]);
      const admin = await readArgoGates(cluster.fleet, new Map([['test', cluster.api]]), 2);
      expect(admin.gates).toMatchObject([{ gated: false }]);
      expect(admin.findings).toHaveLength(1);
    } finally {
      await cluster.close();
    }
  });
});
