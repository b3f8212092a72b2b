import { followedRevisions, pinnedSources, unpinPatch } from '../argocd/pin.js';
import { errorMessage } from '../errors.js';
import type { FleetGateway } from '../fleet/gateway.js';
import type { Logger } from '../ports.js';

export interface UnpinReport {
  readonly unpinned: number;
  readonly failed: number;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/**
 * `gitops-sync unpin`: every Application the orchestrator pinned (the `gitops-sync.io/follows` annotation)
 * gets its followed revisions back in `targetRevision`, on every Argo CD cluster of the fleet; with
 * `repoKey`, only apps with a source of that repository. Take `control: pin` out of the fleet file first,
 * or the next push pins them again.
 */
export async function unpinFleet(fleet: FleetGateway, repoKey: string | undefined, logger: Logger) {
  let unpinned = 0;
  let failed = 0;
  for (const cluster of fleet.clusters) {
    if (!cluster.kinds.includes('Application')) continue;
    let apps: readonly unknown[];
    try {
      apps = await cluster.list('Application', 'refresh');
    } catch (error) {
      logger.warn('unpin: cluster unreadable', { cluster: cluster.name, error: errorMessage(error) });
      failed += 1;
      continue;
    }
    for (const raw of apps) {
      if (followedRevisions(raw).size === 0) continue;
      if (repoKey !== undefined && pinnedSources(raw, [repoKey]).length === 0) continue;
      const patch = unpinPatch(raw);
      const meta = obj(obj(raw).metadata);
      if (patch === undefined || typeof meta.name !== 'string') continue;
      const target = {
        cluster: cluster.name,
        kind: 'Application' as const,
        namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
        name: meta.name,
      };
      try {
        await cluster.patch(target, patch, unpinPatch);
        unpinned += 1;
      } catch (error) {
        failed += 1;
        logger.warn('unpin failed', { cluster: cluster.name, app: target.name, error: errorMessage(error) });
      }
    }
  }
  logger.info('unpinned', { repo: repoKey ?? 'every repository', unpinned, failed });
  return { unpinned, failed } satisfies UnpinReport;
}
