import { UpstreamError } from '../errors.js';
import type { ClusterClients } from './cluster-clients.js';
import { SERVICE_ACCOUNTS } from './resources.js';

/**
 * A ServiceAccount's annotations on a fleet cluster (one GET, bounded by the cluster's timeout and retries);
 * `undefined` when it does not exist. Throws when the cluster is not in the fleet or cannot be read.
 */
export function serviceAccountAnnotations(
  clients: Pick<ClusterClients, 'get'>,
): (
  cluster: string,
  namespace: string,
  name: string,
) => Promise<Readonly<Record<string, string>> | undefined> {
  return async (cluster, namespace, name) => {
    const client = clients.get(cluster);
    if (client === undefined) throw new Error(`cluster ${cluster} is not in the fleet`);
    try {
      const account = await client.get(SERVICE_ACCOUNTS, namespace, name);
      return account.metadata.annotations ?? {};
    } catch (error) {
      if (error instanceof UpstreamError && error.upstreamStatus === 404) return undefined;
      throw error;
    }
  };
}
