import type { ApplicationDestination } from '../argocd/application.js';
import type { ClusterConfig } from './fleet-config.js';

const IN_CLUSTER = /^https:\/\/kubernetes\.default\.svc(\.cluster\.local)?(:443)?\/?$/;

const normalizeServer = (server: string) => server.trim().replace(/\/+$/, '').toLowerCase();

/**
 * The fleet cluster an Application deploys to: `kubernetes.default.svc` (or `in-cluster`) is the cluster the
 * Application lives on; otherwise the cluster whose `server` equals `destination.server`, or whose `name`
 * equals `destination.name`. Undefined when the destination is not in the fleet.
 */
export function destinationCluster(
  destination: ApplicationDestination,
  hostCluster: string,
  clusters: readonly Pick<ClusterConfig, 'name' | 'server'>[],
): string | undefined {
  const { server, name } = destination;
  if (server !== undefined && server !== '') {
    if (IN_CLUSTER.test(server.trim())) return hostCluster;
    const wanted = normalizeServer(server);
    // A cluster whose endpoint only DescribeCluster knows is matched by name (README "Fleet file").
    return clusters.find((c) => c.server !== undefined && normalizeServer(c.server) === wanted)?.name;
  }
  if (name !== undefined && name !== '') {
    if (name === 'in-cluster') return hostCluster;
    return clusters.find((c) => c.name === name)?.name;
  }
  return undefined;
}
