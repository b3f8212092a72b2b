import { ecrRepositoryOf } from '../registry/ecr-repository.js';
import type { TrackedApp } from './tracked-app.js';

/** One OCI or Helm OCI source on an ECR repository, as a pass read it: what the ECR catch-up compares. */
export interface RegistrySource {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  /** The source's index (`status.sync.revisions`). */
  readonly source: number;
  /** `host/path` of the image repository. */
  readonly imageKey: string;
  readonly targetRevision: string;
  /** A Helm OCI source (`chart:`): Argo CD reports the chart version, not the digest. */
  readonly helm: boolean;
  /** What Argo CD last compared the source at (a digest, or a chart version for Helm). */
  readonly synced?: string;
}

/** The app's sources on ECR repositories (none for a Git-only app, or one on another registry). */
export function registrySourcesOf(app: TrackedApp): RegistrySource[] {
  return app.sources.flatMap((tracked): RegistrySource[] => {
    const key = tracked.source.imageKey;
    if (key === undefined || ecrRepositoryOf(key) === undefined) return [];
    return [
      {
        cluster: app.cluster,
        namespace: app.app.namespace,
        name: app.app.name,
        source: tracked.index,
        imageKey: key,
        targetRevision: tracked.source.targetRevision,
        helm: tracked.source.chart !== undefined,
        ...(tracked.synced === undefined ? {} : { synced: tracked.synced }),
      },
    ];
  });
}
