import type { ClusterClients } from '../kubernetes/cluster-clients.js';
import { DEFAULT_PAGE_SIZE, listAllPages } from '../kubernetes/list-pages.js';
import {
  APPLICATION_SETS,
  APPLICATIONS,
  GIT_REPOSITORIES,
  type KubeResource,
} from '../kubernetes/resources.js';
import { slimApplication } from '../kubernetes/slim-object.js';
import type { TargetKind } from '../rollouts/model.js';
import type { ClusterConfig, FleetConfig } from './fleet-config.js';
import type { FleetCluster, FleetGateway } from './gateway.js';

const RESOURCE: Readonly<Record<TargetKind, KubeResource>> = {
  Application: APPLICATIONS,
  ApplicationSet: APPLICATION_SETS,
  GitRepository: GIT_REPOSITORIES,
};

function namespaceOf(cluster: ClusterConfig, kind: TargetKind): string | undefined {
  return kind === 'GitRepository' ? cluster.flux?.namespace : cluster.argocd?.namespace;
}

export { listAllPages };

/** The fleet as fan-out and track see it, over one `ClusterApi` per cluster (retries are the client's). */
export function createFleetGateway(
  fleet: FleetConfig,
  clients: ClusterClients,
  defaultConcurrency: number,
  pageSize = DEFAULT_PAGE_SIZE,
): FleetGateway {
  const clusters: FleetCluster[] = fleet.clusters.map((config) => {
    const kinds: TargetKind[] = [
      ...(config.argocd === undefined ? [] : (['Application', 'ApplicationSet'] as const)),
      ...(config.flux === undefined ? [] : (['GitRepository'] as const)),
    ];
    const api = () => {
      const client = clients.get(config.name);
      if (client === undefined) throw new Error(`no client for cluster ${config.name}`);
      return client;
    };
    return {
      name: config.name,
      kinds,
      concurrency: config.concurrency ?? defaultConcurrency,
      // Slim Applications as each page arrives: matching (whose index keeps the object), the decision
      // and the record read only the slim fields, and a hub's full listing would not fit in memory.
      list: (kind) =>
        listAllPages(
          api(),
          RESOURCE[kind],
          namespaceOf(config, kind),
          pageSize,
          kind === 'Application' ? slimApplication : undefined,
        ),
      async patch(target, patch) {
        await api().mergePatch(
          RESOURCE[target.kind],
          target.namespace,
          target.name,
          patch as Record<string, unknown>,
        );
      },
    };
  });
  const byName = new Map(clusters.map((c) => [c.name, c]));
  return { clusters, cluster: (name) => byName.get(name) };
}
