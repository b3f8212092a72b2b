import { createLimiter } from '../concurrency.js';
import { UpstreamError } from '../errors.js';
import type { ClusterClients } from '../kubernetes/cluster-clients.js';
import { DEFAULT_PAGE_SIZE, LIST_PAGES_IN_FLIGHT, listAllPages } from '../kubernetes/list-pages.js';
import {
  APPLICATION_SETS,
  APPLICATIONS,
  GIT_REPOSITORIES,
  type KubeResource,
} from '../kubernetes/resources.js';
import { slimApplication, slimForRefresh, slimForTrack } from '../kubernetes/slim-object.js';
import type { TargetKind } from '../rollouts/app-model.js';
import { argocdNamespaces, type ClusterConfig, type FleetConfig } from './fleet-config.js';
import type { FleetCluster, FleetGateway } from './gateway.js';

const RESOURCE: Readonly<Record<TargetKind, KubeResource>> = {
  Application: APPLICATIONS,
  ApplicationSet: APPLICATION_SETS,
  GitRepository: GIT_REPOSITORIES,
};

/** Where a kind lives on a cluster: Flux's namespace, or every namespace Argo CD keeps Applications in. */
function namespacesOf(cluster: ClusterConfig, kind: TargetKind): readonly (string | undefined)[] {
  if (kind === 'GitRepository') return [cluster.flux?.namespace];
  const namespaces = argocdNamespaces(cluster);
  return namespaces.length === 0 ? [undefined] : namespaces;
}

export { listAllPages };

/** Reads and patches again after a 409 (another writer moved the object on between them). */
const CONFLICT_ROUNDS = 4;

const isConflict = (error: unknown) => error instanceof UpstreamError && error.upstreamStatus === 409;

/** The fleet as fan-out and track see it, over one `ClusterApi` per cluster (retries are the client's). */
export function createFleetGateway(
  fleet: FleetConfig,
  clients: ClusterClients,
  defaultConcurrency: number,
  pageSize = DEFAULT_PAGE_SIZE,
): FleetGateway {
  // One budget of pages read at once for every cluster and every message this process handles.
  const pages = createLimiter(LIST_PAGES_IN_FLIGHT);
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
      // One LIST (every page) per namespace the kind lives in. Applications are slimmed as each page
      // arrives: matching (whose index keeps the object), the decision and the record read only the slim
      // fields, and a hub's full listing would not fit in memory.
      list: async (kind, view) => {
        const slim =
          kind !== 'Application'
            ? undefined
            : view === undefined
              ? slimApplication
              : view === 'refresh'
                ? slimForRefresh
                : slimForTrack;
        const lists = await Promise.all(
          namespacesOf(config, kind).map((ns) =>
            listAllPages(api(), RESOURCE[kind], ns, {
              limit: pageSize,
              pages,
              ...(slim === undefined ? {} : { slim }),
            }),
          ),
        );
        return lists.flat();
      },
      async patch(target, patch, rebuild) {
        const resource = RESOURCE[target.kind];
        let body: object | undefined = patch;
        for (let round = 1; body !== undefined; round++) {
          try {
            await api().mergePatchQuiet(
              resource,
              target.namespace,
              target.name,
              body as Record<string, unknown>,
            );
            return;
          } catch (error) {
            if (rebuild === undefined || round >= CONFLICT_ROUNDS || !isConflict(error)) throw error;
            body = rebuild(await api().get(resource, target.namespace, target.name));
          }
        }
      },
    };
  });
  const byName = new Map(clusters.map((c) => [c.name, c]));
  return { clusters, cluster: (name) => byName.get(name) };
}
