import type { TokenIdentity } from '../../infra/simulator/access-control.js';
import { type KubeApiServer, startKubeApiServer } from '../../infra/simulator/kube-api-server.js';
import type { FleetConfig } from '../../lib/fleet/fleet-config.js';
import type { ClusterApi } from '../../lib/kubernetes/cluster-api.js';
import { createClusterClients } from '../../lib/kubernetes/cluster-clients.js';
import type { RetryOptions } from '../../lib/kubernetes/retry.js';

export const ADMIN_TOKEN = 'test-admin-token';

export interface TestCluster {
  readonly server: KubeApiServer;
  /** The orchestrator's client for this cluster (literal admin token). */
  readonly api: ClusterApi;
  readonly fleet: FleetConfig;
  close(): Promise<void>;
}

/** One simulated API server on loopback and the orchestrator's `ClusterApi` pointed at it. */
export async function startTestCluster(
  options: {
    name?: string;
    tokens?: Record<string, TokenIdentity>;
    timeoutMs?: number;
    retry?: RetryOptions | false;
  } = {},
): Promise<TestCluster> {
  const server = await startKubeApiServer({
    tokens: { [ADMIN_TOKEN]: { user: 'admin' }, ...options.tokens },
  });
  const name = options.name ?? 'test';
  const fleet: FleetConfig = {
    clusters: [
      {
        name,
        server: server.url,
        auth: { token: ADMIN_TOKEN },
        argocd: { namespace: 'argocd' },
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      },
    ],
    repositories: [],
    secretPolicy: 'block',
    secretStores: [],
  };
  const clients = createClusterClients(fleet, {
    secrets: { getSecretString: () => Promise.reject(new Error('no secrets in this test')) },
    retry: options.retry ?? false,
  });
  const api = clients.get(name) as ClusterApi;
  return { server, api, fleet, close: () => server.close() };
}

/** Polls `probe` until it returns something other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 5000, intervalMs = 5 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`waitFor: condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A minimal Argo CD Application manifest. */
export function application(
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec: Record<string, unknown>;
} {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd', ...metadata },
    spec: {
      project: 'default',
      source: { repoURL: 'https://git.example/org/platform', path: `apps/${name}`, targetRevision: 'main' },
      destination: { name: 'in-cluster', namespace: name },
      ...spec,
    },
  };
}

/** A live Application that ended its sync to `sha`: synced and healthy. */
export const syncedApplication = (name: string, sha: string) => ({
  metadata: { name, namespace: 'argocd' },
  status: {
    sync: { status: 'Synced', revision: sha },
    health: { status: 'Healthy' },
    operationState: {
      phase: 'Succeeded',
      finishedAt: new Date().toISOString(),
      syncResult: { revision: sha },
      operation: { sync: { revision: sha } },
    },
  },
});
