import { APPLICATIONS, GIT_REPOSITORIES } from '../../lib/kubernetes/resources.js';
import { resolveUrlOf, sourcesOf } from './application-sim.js';
import type { ResolveRevision } from './argocd-controller.js';
import type { SeedObject } from './default-fleet.js';
import { applyFluxReconcile, fluxRef } from './flux-sim.js';
import type { StoredObject } from './resource-store.js';
import { timestamp } from './sim-annotations.js';

/**
 * Gives Applications and GitRepositories seeded without a status the status of a finished, healthy sync
 * at the commit their revision resolves to now, so a fresh world starts settled.
 */
export async function primeStatus(
  seeds: readonly SeedObject[],
  resolve: ResolveRevision,
  now: Date,
): Promise<SeedObject[]> {
  const cache = new Map<string, Promise<string | undefined>>();
  const cached: ResolveRevision = (repoURL, revision) => {
    const key = `${repoURL}\n${revision}`;
    let hit = cache.get(key);
    if (hit === undefined) {
      hit = Promise.resolve(resolve(repoURL, revision));
      cache.set(key, hit);
    }
    return hit;
  };
  return Promise.all(
    seeds.map(async (seed) => {
      if (seed.object.status !== undefined) return seed;
      if (seed.resource === APPLICATIONS)
        return { ...seed, object: await primeApplication(seed.object, cached, now, seed.bulkStatus) };
      if (seed.resource === GIT_REPOSITORIES) {
        const object = structuredClone(seed.object);
        const url = (object.spec as { url?: unknown } | undefined)?.url;
        const sha = typeof url === 'string' ? await cached(url, fluxRef(object).revision) : undefined;
        applyFluxReconcile(object, 'primed', sha, now);
        delete (object.status as Record<string, unknown>).lastHandledReconcileAt;
        return { ...seed, object };
      }
      return seed;
    }),
  );
}

async function primeApplication(
  input: StoredObject,
  resolve: ResolveRevision,
  now: Date,
  bulkStatus: Record<string, unknown> = {},
): Promise<StoredObject> {
  // Only `status` is set, on a copy of the top level: the seed's nested objects are shared, never changed.
  const app: StoredObject = { ...input };
  const { sources, multi } = sourcesOf(app);
  const revisions = await Promise.all(sources.map((s) => resolve(resolveUrlOf(s), s.targetRevision)));
  const at = timestamp(now);
  if (revisions.length === 0 || revisions.some((r) => r === undefined)) {
    app.status = {
      sync: { status: 'Unknown' },
      health: { status: 'Missing' },
      conditions: [
        { type: 'ComparisonError', message: 'unable to resolve the target revision', lastTransitionTime: at },
      ],
      reconciledAt: at,
    };
    return app;
  }
  const resolved = revisions as string[];
  const revision = multi ? { revisions: resolved } : { revision: resolved[0] };
  const bulk = bulkStatus as { history?: unknown[]; operationState?: { syncResult?: object } };
  app.status = {
    ...bulk,
    sync: { status: 'Synced', ...revision },
    health: { status: 'Healthy' },
    reconciledAt: at,
    operationState: {
      operation: { sync: revision, initiatedBy: { automated: true } },
      phase: 'Succeeded',
      message: 'successfully synced (all tasks run)',
      startedAt: at,
      finishedAt: at,
      syncResult: { ...bulk.operationState?.syncResult, ...revision },
    },
    history: [
      ...(bulk.history ?? []),
      { ...revision, deployedAt: at, deployStartedAt: at, id: bulk.history?.length ?? 0 },
    ],
  };
  return app;
}
