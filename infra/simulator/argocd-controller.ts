import {
  APPLICATION_SETS,
  APPLICATIONS,
  GIT_REPOSITORIES,
  type KubeResource,
} from '../../lib/kubernetes/resources.js';
import type { Clock } from '../../lib/ports.js';
import { systemClock } from '../../lib/ports.js';
import {
  applyRefresh,
  attemptedRevisions,
  isAutomated,
  isOperationRunning,
  revisionKey,
  sourcesOf,
  status,
  syncedRevisions,
} from './application-sim.js';
import { applyFluxReconcile, fluxRef, fluxRequestPending } from './flux-sim.js';
import { operationSteps, startOperation } from './operation-sim.js';
import type { ResourceStore, StoredObject } from './resource-store.js';
import {
  ARGO_ANNOTATIONS,
  numberAnnotation,
  outcomeOf,
  SIM_ANNOTATIONS,
  timestamp,
} from './sim-annotations.js';

/** Resolves a branch, tag, semver constraint or SHA of a repository to a commit (undefined: unknown). */
export type ResolveRevision = (
  repoURL: string,
  targetRevision: string,
) => string | undefined | Promise<string | undefined>;

export interface ControllerOptions {
  readonly store: ResourceStore;
  readonly resolveRevision: ResolveRevision;
  readonly clock?: Clock;
  /** Work runs every `tickMs`; 0 means only when `tick()` is called (deterministic tests). Default 50. */
  readonly tickMs?: number;
  /** Default operation duration (per app: `sim.gitops-sync.dev/sync-ms`). Default 200. */
  readonly syncMs?: number;
  /** Default time health stays Progressing after a sync (per app: `sim.gitops-sync.dev/health-ms`). Default 200. */
  readonly healthMs?: number;
  /** Backoff before a retried attempt starts again. Default: `syncMs`. */
  readonly retryMs?: number;
  /** How long an ApplicationSet keeps its refresh annotation. Default 0 (removed on the next tick). */
  readonly appSetRefreshMs?: number;
  readonly onError?: (error: unknown) => void;
}

export interface SimulatedController {
  /** Handles pending refreshes and every step that is due now. */
  tick(): Promise<void>;
  /** No refresh pending and no operation step scheduled. */
  idle(): boolean;
  stop(): void;
}

interface Step {
  readonly due: number;
  readonly resource: KubeResource;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly run: (draft: StoredObject, now: Date) => void;
  readonly generation: number;
}

/**
 * A simulated Argo CD application controller (plus the ApplicationSet controller and Flux source-controller
 * reactions) bound to one cluster's store: refresh requests are handled, automated syncs run through the
 * phases Argo CD reports, and outcomes are scripted per app by `sim.gitops-sync.dev/*` annotations.
 */
export function startArgoCdController(options: ControllerOptions): SimulatedController {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const syncMs = options.syncMs ?? 200;
  const healthMs = options.healthMs ?? 200;
  const pending = new Map<
    string,
    { resource: KubeResource; namespace: string | undefined; name: string; due: number }
  >();
  const steps: Step[] = [];
  const generations = new Map<string, number>();
  let running = false;
  let stopped = false;

  const id = (resource: KubeResource, namespace: string | undefined, name: string) =>
    `${resource.plural}/${namespace ?? ''}/${name}`;

  const consider = (resource: KubeResource, object: StoredObject) => {
    const annotations = object.metadata.annotations;
    if (annotations?.[SIM_ANNOTATIONS.ignoreRefresh] === 'true') return;
    const wanted =
      (resource === APPLICATIONS && annotations?.[ARGO_ANNOTATIONS.refresh] !== undefined) ||
      (resource === APPLICATION_SETS && annotations?.[ARGO_ANNOTATIONS.appSetRefresh] !== undefined) ||
      (resource === GIT_REPOSITORIES && fluxRequestPending(object) !== undefined);
    const key = id(resource, object.metadata.namespace, object.metadata.name);
    if (!wanted || pending.has(key)) return;
    const delay = resource === APPLICATION_SETS ? (options.appSetRefreshMs ?? 0) : 0;
    pending.set(key, {
      resource,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      due: clock.now().getTime() + delay,
    });
  };
  for (const resource of [APPLICATIONS, APPLICATION_SETS, GIT_REPOSITORIES]) {
    for (const object of store.list(resource)) consider(resource, object);
  }
  const unsubscribe = store.subscribe((event) => {
    if (event.type === 'DELETED') return;
    for (const resource of [APPLICATIONS, APPLICATION_SETS, GIT_REPOSITORIES]) {
      if (event.resource.plural === resource.plural && event.resource.group === resource.group)
        consider(resource, event.object);
    }
  });

  /**
   * Keeps `steps` ordered by due time, a new step after every step due at or before it: the order a stable
   * sort of the steps in the order they were scheduled gives, without sorting thousands of steps per step.
   */
  const insertStep = (step: Step) => {
    let low = 0;
    let high = steps.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((steps[middle] as Step).due <= step.due) low = middle + 1;
      else high = middle;
    }
    steps.splice(low, 0, step);
  };

  const schedule = (
    resource: KubeResource,
    object: StoredObject,
    queue: ReturnType<typeof operationSteps>,
    at: number,
    generation: number,
  ) => {
    const [next, ...rest] = queue;
    if (next === undefined) return;
    insertStep({
      due: at + next.afterMs,
      resource,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      generation,
      run: (draft, now) => {
        next.apply(draft, now);
        // A newer compared commit starts its own sync at once; this operation's later steps then lapse.
        if (!isOperationRunning(draft)) followUp(draft, now);
        schedule(resource, draft, rest, now.getTime(), generation);
      },
    });
  };

  /** After an operation ends, a newer compared revision gets its own automated sync. */
  const followUp = (app: StoredObject, now: Date) => {
    const compared = syncedRevisions(app);
    const syncStatus = (status(app).sync as { status?: string } | undefined)?.status;
    if (
      !isAutomated(app) ||
      syncStatus !== 'OutOfSync' ||
      revisionKey(compared) === revisionKey(attemptedRevisions(app))
    )
      return;
    begin(app, compared, sourcesOf(app).multi, now);
  };

  const begin = (app: StoredObject, revisions: string[], multi: boolean, now: Date) => {
    const outcome = outcomeOf(app.metadata.annotations);
    if (outcome === 'unchanged') return;
    startOperation(app, revisions, multi, now);
    const key = id(APPLICATIONS, app.metadata.namespace, app.metadata.name);
    const generation = (generations.get(key) ?? 0) + 1;
    generations.set(key, generation);
    const annotations = app.metadata.annotations;
    const appSyncMs = numberAnnotation(annotations, SIM_ANNOTATIONS.syncMs, syncMs);
    const timings = {
      syncMs: appSyncMs,
      healthMs: numberAnnotation(annotations, SIM_ANNOTATIONS.healthMs, healthMs),
      retryMs: options.retryMs ?? appSyncMs,
      retries: Math.max(1, Math.floor(numberAnnotation(annotations, SIM_ANNOTATIONS.retries, 1))),
    };
    schedule(APPLICATIONS, app, operationSteps(app, outcome, timings), now.getTime(), generation);
  };

  const refreshApplication = async (
    namespace: string | undefined,
    name: string,
    resolve: ResolveRevision,
  ) => {
    const current = store.get(APPLICATIONS, namespace, name);
    if (current === undefined) return;
    const { sources, multi } = sourcesOf(current);
    const revisions = await Promise.all(sources.map((s) => resolve(s.repoURL, s.targetRevision)));
    if (store.get(APPLICATIONS, namespace, name) === undefined) return;
    store.update(APPLICATIONS, namespace, name, (app) => {
      const now = clock.now();
      const attempted = revisionKey(attemptedRevisions(app));
      if (applyRefresh(app, revisions, multi, timestamp(now)) === 'unresolved') return;
      const resolved = revisions as string[];
      const outOfSync = (status(app).sync as { status?: string }).status === 'OutOfSync';
      if (isAutomated(app) && outOfSync && !isOperationRunning(app) && revisionKey(resolved) !== attempted) {
        begin(app, resolved, multi, now);
      }
    });
  };

  const refreshGitRepository = async (
    namespace: string | undefined,
    name: string,
    resolve: ResolveRevision,
  ) => {
    const current = store.get(GIT_REPOSITORIES, namespace, name);
    const requestedAt = current === undefined ? undefined : fluxRequestPending(current);
    if (current === undefined || requestedAt === undefined) return;
    const url = (current.spec as { url?: unknown } | undefined)?.url;
    const sha = typeof url === 'string' ? await resolve(url, fluxRef(current).revision) : undefined;
    if (store.get(GIT_REPOSITORIES, namespace, name) === undefined) return;
    store.update(GIT_REPOSITORIES, namespace, name, (repo) =>
      applyFluxReconcile(repo, requestedAt, sha, clock.now()),
    );
  };

  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const now = clock.now().getTime();
      const due = [...pending].filter(([, entry]) => entry.due <= now);
      for (const [key] of due) pending.delete(key);
      const cache = new Map<string, Promise<string | undefined>>();
      const resolve: ResolveRevision = (repoURL, revision) => {
        const cacheKey = `${repoURL}\n${revision}`;
        let hit = cache.get(cacheKey);
        if (hit === undefined) {
          hit = Promise.resolve(options.resolveRevision(repoURL, revision));
          cache.set(cacheKey, hit);
        }
        return hit;
      };
      await Promise.all(
        due.map(async ([, { resource, namespace, name }]) => {
          try {
            if (resource === APPLICATIONS) await refreshApplication(namespace, name, resolve);
            else if (resource === GIT_REPOSITORIES) await refreshGitRepository(namespace, name, resolve);
            else removeAppSetRefresh(store, namespace, name, clock.now());
          } catch (error) {
            options.onError?.(error);
          }
        }),
      );
      runDueSteps();
    } finally {
      running = false;
    }
  };

  const runDueSteps = () => {
    for (let guard = 0; guard < 1000; guard++) {
      const now = clock.now();
      const next = steps[0];
      if (next === undefined || next.due > now.getTime()) return;
      steps.shift();
      const key = id(next.resource, next.namespace, next.name);
      if (
        generations.get(key) !== next.generation ||
        store.get(next.resource, next.namespace, next.name) === undefined
      )
        continue;
      try {
        store.update(next.resource, next.namespace, next.name, (draft) => next.run(draft, now));
      } catch (error) {
        options.onError?.(error);
      }
    }
  };

  const tickMs = options.tickMs ?? 50;
  const timer = tickMs > 0 ? setInterval(() => void tick(), tickMs) : undefined;
  timer?.unref();

  return {
    tick,
    idle: () => pending.size === 0 && steps.length === 0,
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      unsubscribe();
      steps.length = 0;
      pending.clear();
    },
  };
}

function removeAppSetRefresh(
  store: ResourceStore,
  namespace: string | undefined,
  name: string,
  now: Date,
): void {
  if (store.get(APPLICATION_SETS, namespace, name) === undefined) return;
  store.update(APPLICATION_SETS, namespace, name, (appSet) => {
    delete appSet.metadata.annotations?.[ARGO_ANNOTATIONS.appSetRefresh];
    appSet.status = {
      ...((appSet.status ?? {}) as Record<string, unknown>),
      conditions: [
        {
          type: 'ResourcesUpToDate',
          status: 'True',
          reason: 'ApplicationSetUpToDate',
          message: 'All applications have been generated successfully',
          lastTransitionTime: timestamp(now),
        },
      ],
    };
  });
}
