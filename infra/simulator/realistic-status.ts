/**
 * The bulk of a real Argo CD Application's status, for benchmarks: `resources` (one entry per managed
 * object), `history` (the last deploys, each with its source), `operationState.syncResult.resources` (a
 * result per object), `summary`, and `managedFields` in metadata. About 20 KB of JSON per app with the
 * defaults, like the 10-30 KB issue 11 measured; passed as a seed's `bulkStatus`, priming lays the live sync state over it.
 */
export function realisticBulk(
  service: string,
  repoURL: string,
  options: { resources?: number; history?: number } = {},
): { status: Record<string, unknown>; managedFields: unknown[] } {
  const kinds = ['Deployment', 'Service', 'ConfigMap', 'ServiceAccount', 'HorizontalPodAutoscaler'];
  const time = '2026-11-30T12:00:00Z';
  const objects = Array.from({ length: options.resources ?? 30 }, (_, i) => {
    const kind = kinds[i % kinds.length] as string;
    return {
      group: kind === 'Deployment' || kind === 'HorizontalPodAutoscaler' ? 'apps' : '',
      version: 'v1',
      kind,
      namespace: service,
      name: `${service}-${kind.toLowerCase()}-${i}`,
    };
  });
  const source = { repoURL, path: `apps/${service}`, targetRevision: 'main' };
  const sha = (n: number) => n.toString(16).padStart(40, '0');
  return {
    status: {
      resources: objects.map((o) => ({
        ...o,
        status: 'Synced',
        health: { status: 'Healthy', message: `${o.kind} ${o.name} is healthy and all replicas are ready` },
      })),
      history: Array.from({ length: (options.history ?? 10) - 1 }, (_, i) => ({
        id: i,
        revision: sha(i + 1),
        deployedAt: time,
        deployStartedAt: time,
        source,
        initiatedBy: { automated: true },
      })),
      operationState: {
        syncResult: {
          source,
          resources: objects.map((o) => ({
            ...o,
            status: 'Synced',
            message: `${o.kind.toLowerCase()}.${o.group || 'core'}/${o.name} configured (server-side apply)`,
            hookPhase: 'Running',
            syncPhase: 'Sync',
          })),
        },
      },
      summary: { images: [`ghcr.io/example/${service}:1.0.0`, 'ghcr.io/example/sidecar:2.3.1'] },
      sourceType: 'Directory',
    },
    managedFields: ['argocd-application-controller', 'argocd-server', 'kubectl-client-side-apply'].map(
      (manager) => ({
        manager,
        operation: 'Update',
        apiVersion: 'argoproj.io/v1alpha1',
        time,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:status': Object.fromEntries(
            ['f:resources', 'f:history', 'f:operationState', 'f:sync', 'f:health', 'f:summary'].map((f) => [
              f,
              {},
            ]),
          ),
          'f:metadata': { 'f:annotations': { '.': {}, 'f:argocd.argoproj.io/manifest-generate-paths': {} } },
        },
      }),
    ),
  };
}
