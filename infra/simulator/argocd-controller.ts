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
  resolveUrlOf,
  revisionKey,
  sourcesOf,
  status,
  syncedRevisions,
} from './application-sim.js';
import { applyFluxReconcile, fluxRef, fluxRequestPending } from './flux-sim.js';
import { operationSteps, startOperation } from './operation-sim.js';
import { DEFAULT_RECONCILIATION_MS, pollingPeriodMs } from './polling.js';
import { createRefCache, DEFAULT_CACHE_EXPIRATION_MS } from './ref-cache.js';
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
  /** This Argo CD's namespace, where its `argocd-cm` is read. Default `argocd`. */
  readonly argocdNamespace?: string;
  /**
   * The polling period (ms) when `argocd-cm` does not set `timeout.reconciliation`; 0 is off. Default
   * 180 000, Argo CD's. Each app is compared through the ref cache once its last comparison is that old.
   */
  readonly reconciliationMs?: number;
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

/** How a comparison resolves a branch: `live` asks Git (level 3), `cached` reads the shared ref cache (2). */
type Level = 'live' | 'cached';

/**
 * A simulated Argo CD application controller (plus the ApplicationSet controller and Flux source-controller
 * reactions) bound to one cluster's store: refresh requests are handled, automated syncs run through the
 * phases Argo CD reports, and outcomes are scripted per app by `sim.gitops-sync.dev/*` annotations. What
 * else moves an app to a new commit (`notes/argocd-refresh-triggers.md`) is modelled where it matters: a
 * refresh or a change of `spec.source(s)` resolves live; polling (`timeout.reconciliation` of `argocd-cm`)
 * and the compare after every finished sync go through a ref cache shared by the repository's apps; a
 * full 40-hex SHA `targetRevision` is used as it is.
 */
export function startArgoCdController(options: ControllerOptions): SimulatedController {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const syncMs = options.syncMs ?? 200;
  const healthMs = options.healthMs ?? 200;
  const pending = new Map<
    string,
    { resource: KubeResource; namespace: string | undefined; name: string; due: number; level: Level }
  >();
  const argocdNamespace = options.argocdNamespace ?? 'argocd';
  const pollingMs = () =>
    pollingPeriodMs(store, argocdNamespace, options.reconciliationMs ?? DEFAULT_RECONCILIATION_MS);
  const refs = createRefCache(
    options.resolveRevision,
    clock,
    () => pollingMs() || DEFAULT_CACHE_EXPIRATION_MS,
  );
  /** Each app's `spec.source(s)` as last compared, and when it was last compared without a change. */
  const comparedSources = new Map<string, string>();
  const lastCompared = new Map<string, number>();
  let nextPollScan = 0;
  const steps: Step[] = [];
  const generations = new Map<string, number>();
  let running = false;
  let stopped = false;

  const id = (resource: KubeResource, namespace: string | undefined, name: string) =>
    `${resource.plural}/${namespace ?? ''}/${name}`;

  const enqueue = (resource: KubeResource, object: StoredObject, level: Level, delay = 0) => {
    const key = id(resource, object.metadata.namespace, object.metadata.name);
    const queued = pending.get(key);
    if (queued !== undefined) {
      if (level === 'live') queued.level = 'live';
      return;
    }
    pending.set(key, {
      resource,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      due: clock.now().getTime() + delay,
      level,
    });
  };

  /** True when the app's sources differ from the ones last compared (a spec change: Argo CD resolves live). */
  const sourcesChanged = (object: StoredObject): boolean => {
    const key = id(APPLICATIONS, object.metadata.namespace, object.metadata.name);
    const sources = JSON.stringify(sourcesOf(object).sources);
    const before = comparedSources.get(key);
    comparedSources.set(key, sources);
    return before !== undefined && before !== sources;
  };

  const consider = (resource: KubeResource, object: StoredObject) => {
    const annotations = object.metadata.annotations;
    if (annotations?.[SIM_ANNOTATIONS.ignoreRefresh] === 'true') return;
    const changed = resource === APPLICATIONS && sourcesChanged(object);
    const wanted =
      changed ||
      (resource === APPLICATIONS && annotations?.[ARGO_ANNOTATIONS.refresh] !== undefined) ||
      (resource === APPLICATION_SETS && annotations?.[ARGO_ANNOTATIONS.appSetRefresh] !== undefined) ||
      (resource === GIT_REPOSITORIES && fluxRequestPending(object) !== undefined);
    if (!wanted) return;
    enqueue(resource, object, 'live', resource === APPLICATION_SETS ? (options.appSetRefreshMs ?? 0) : 0);
  };

  /** Polling: every app whose last comparison is older than the period gets a cached comparison. */
  const pollDue = (now: number) => {
    const period = pollingMs();
    if (period <= 0 || now < nextPollScan) return;
    nextPollScan = now + Math.min(period, 1000) / 2;
    for (const app of store.list(APPLICATIONS)) {
      if (app.metadata.annotations?.[SIM_ANNOTATIONS.ignoreRefresh] === 'true') continue;
      const key = id(APPLICATIONS, app.metadata.namespace, app.metadata.name);
      const reconciledAt = Date.parse(String(status(app).reconciledAt ?? ''));
      const last = Math.max(Number.isNaN(reconciledAt) ? 0 : reconciledAt, lastCompared.get(key) ?? 0);
      if (now - last >= period) enqueue(APPLICATIONS, app, 'cached');
    }
  };
  for (const resource of [APPLICATIONS, APPLICATION_SETS, GIT_REPOSITORIES]) {
    for (const object of store.list(resource)) consider(resource, object);
  }
  const unsubscribe = store.subscribe((event) => {
    if (event.type === 'DELETED') {
      const key = id(event.resource, event.object.metadata.namespace, event.object.metadata.name);
      comparedSources.delete(key);
      lastCompared.delete(key);
      return;
    }
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
        const wasRunning = isOperationRunning(draft);
        next.apply(draft, now);
        // Every finished sync is followed by a comparison through the ref cache (Argo CD's level 2).
        if (resource === APPLICATIONS && wasRunning && !isOperationRunning(draft))
          enqueue(APPLICATIONS, draft, 'cached');
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
    level: Level,
  ) => {
    const current = store.get(APPLICATIONS, namespace, name);
    if (current === undefined) return;
    const { sources, multi } = sourcesOf(current);
    const revisions = await Promise.all(sources.map((s) => resolve(resolveUrlOf(s), s.targetRevision)));
    const latest = store.get(APPLICATIONS, namespace, name);
    if (latest === undefined) return;
    const key = id(APPLICATIONS, namespace, name);
    lastCompared.set(key, clock.now().getTime());
    // A cached comparison that finds the commit already compared changes nothing (no write, no event).
    const same =
      revisions.every((r) => r !== undefined) &&
      revisionKey(revisions as string[]) === revisionKey(syncedRevisions(latest));
    if (level === 'cached' && same) return;
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
      pollDue(now);
      const due = [...pending].filter(([, entry]) => entry.due <= now);
      for (const [key] of due) pending.delete(key);
      // One ls-remote per repository revision and level per tick, however many apps ask.
      const cache = new Map<string, Promise<string | undefined>>();
      const resolver =
        (level: Level): ResolveRevision =>
        (repoURL, revision) => {
          const cacheKey = `${level}\n${repoURL}\n${revision}`;
          let hit = cache.get(cacheKey);
          if (hit === undefined) {
            hit = level === 'live' ? refs.live(repoURL, revision) : refs.cached(repoURL, revision);
            cache.set(cacheKey, hit);
          }
          return hit;
        };
      await Promise.all(
        due.map(async ([, { resource, namespace, name, level }]) => {
          try {
            if (resource === APPLICATIONS) await refreshApplication(namespace, name, resolver(level), level);
            else if (resource === GIT_REPOSITORIES)
              await refreshGitRepository(namespace, name, resolver('live'));
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
