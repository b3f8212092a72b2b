import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFleetFile } from '../../../lib/fleet/fleet-file.js';
import { createFleetGateway } from '../../../lib/fleet/fleet-gateway.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { startTestCluster, type TestCluster } from '../../helpers/simulator.js';

const app = (namespace: string, name: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace },
  spec: { project: 'default', source: { repoURL: 'https://github.com/org/gitops', path: name } },
});

describe('Argo CD in several namespaces of one cluster', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ name: 'hub' });
    cluster.server.store.create(APPLICATIONS, app('argocd', 'platform'));
    cluster.server.store.create(APPLICATIONS, app('team-a', 'shop'));
    cluster.server.store.create(APPLICATIONS, app('team-b', 'ignored'));
  });
  afterAll(async () => cluster?.close());

  it('reads `argocd.namespaces` and refuses it together with `namespace` or with a repeat', () => {
    const text = (argocd: string) =>
      `clusters:\n  - name: hub\n    server: https://k8s.example\n    auth: { tokenSecret: hub }\n    argocd: ${argocd}\n`;
    expect(parseFleetFile(text('{ namespaces: [argocd, team-a] }')).clusters[0]?.argocd).toEqual({
      namespace: 'argocd',
      namespaces: ['argocd', 'team-a'],
    });
    expect(() => parseFleetFile(text('{ namespace: argocd, namespaces: [team-a] }'))).toThrow(
      /argocd\.namespace: and namespaces are exclusive/,
    );
    expect(() => parseFleetFile(text('{ namespaces: [argocd, argocd] }'))).toThrow(/must not repeat/);
    expect(() => parseFleetFile(text('{ namespaces: [Team_A] }'))).toThrow(/namespaces\[0\]/);
  });

  it('lists Applications in every named namespace, one LIST each, and in no other', async () => {
    const [base] = cluster.fleet.clusters;
    if (base === undefined) throw new Error('no cluster');
    const fleet = {
      ...cluster.fleet,
      clusters: [{ ...base, argocd: { namespace: 'argocd', namespaces: ['argocd', 'team-a'] } }],
    };
    const gateway = createFleetGateway(
      fleet,
      createClusterClients(fleet, { secrets: { getSecretString: async () => '' } }),
      4,
    );
    cluster.server.requests.reset();
    const listed = await gateway.cluster('hub')?.list('Application');
    const names = (listed ?? []).map(
      (o) => (o as { metadata: { namespace: string; name: string } }).metadata,
    );
    expect(names.map((m) => `${m.namespace}/${m.name}`).sort()).toEqual(['argocd/platform', 'team-a/shop']);
    const lists = cluster.server.requests
      .all()
      .filter((r) => r.verb === 'list' && r.resource === 'applications');
    expect(lists.map((r) => r.namespace).sort()).toEqual(['argocd', 'team-a']);
  });
});
