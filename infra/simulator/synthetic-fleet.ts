import { APPLICATIONS } from '../../lib/kubernetes/resources.js';
import type { SeedObject, SimulatedWorld } from './default-fleet.js';
import { realisticBulk } from './realistic-status.js';

export interface SyntheticFleetOptions {
  /** Clusters running Argo CD (each manages its own apps). */
  readonly clusters: number;
  /** Applications in all, spread evenly. */
  readonly applications: number;
  readonly repoURL: string;
  /** Service directories `apps/svc-<n>/` the apps are spread over (default 100). */
  readonly services?: number;
  /** Give each Application a real one's bulk (`realisticBulk`: ~20 KB): issue 11's realistic objects. */
  readonly realistic?: boolean;
  /**
   * Annotate each Application `manifest-generate-paths: .` (default true). Without it, as Argo CD's default,
   * every push of the repository refreshes every app, whatever files it changed.
   */
  readonly pathFiltered?: boolean;
}

/**
 * A large uniform world for benchmarks: `clusters` clusters `c-000…`, each running Argo CD, with
 * Applications `svc-<n>-<cluster>` on `apps/svc-<n>` of one repository, path-filtered to their directory
 * (unless `pathFiltered: false`).
 */
export function syntheticFleet(options: SyntheticFleetOptions): SimulatedWorld {
  const services = options.services ?? 100;
  const names = Array.from({ length: options.clusters }, (_, i) => `c-${String(i).padStart(3, '0')}`);
  const objects: Record<string, SeedObject[]> = Object.fromEntries(names.map((name) => [name, []]));
  // One bulk per service, shared by its seeds: the store copies every seed it is given.
  const bulks = new Map<string, ReturnType<typeof realisticBulk>>();
  const bulkOf = (service: string) => {
    let bulk = bulks.get(service);
    if (bulk === undefined) {
      bulk = realisticBulk(service, options.repoURL);
      bulks.set(service, bulk);
    }
    return bulk;
  };
  for (let i = 0; i < options.applications; i++) {
    const cluster = names[i % names.length] as string;
    const service = `svc-${Math.floor(i / names.length) % services}`;
    const index = Math.floor(i / (names.length * services));
    const bulk = options.realistic === true ? bulkOf(service) : undefined;
    objects[cluster]?.push({
      resource: APPLICATIONS,
      ...(bulk === undefined ? {} : { bulkStatus: bulk.status }),
      object: {
        metadata: {
          name: `${service}-${index}`,
          namespace: 'argocd',
          ...(options.pathFiltered === false
            ? {}
            : { annotations: { 'argocd.argoproj.io/manifest-generate-paths': '.' } }),
          ...(bulk === undefined ? {} : { managedFields: bulk.managedFields }),
        },
        spec: {
          project: 'default',
          source: { repoURL: options.repoURL, path: `apps/${service}`, targetRevision: 'main' },
          destination: { name: 'in-cluster', namespace: service },
          syncPolicy: { automated: { prune: true } },
        },
      },
    });
  }
  return { clusters: names.map((name) => ({ name, argocd: { namespace: 'argocd' } })), objects };
}
