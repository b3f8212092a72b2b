import type { StoredObject } from './resource-store.js';
import { ARGO_ANNOTATIONS, outcomeOf } from './sim-annotations.js';

type Json = Record<string, unknown>;

export interface AppSource {
  readonly repoURL: string;
  readonly targetRevision: string;
  readonly path?: string;
  readonly chart?: string;
  readonly ref?: string;
}

/** The sources of an Application (`spec.sources` for multi-source, else `spec.source`); malformed ones skipped. */
/** Where a source's revision is resolved: a Helm chart source at `<repoURL>/<chart>` (its OCI repository). */
export function resolveUrlOf(source: Pick<AppSource, 'repoURL' | 'chart'>): string {
  return source.chart === undefined
    ? source.repoURL
    : `${source.repoURL.replace(/\/+$/, '')}/${source.chart}`;
}

export function sourcesOf(app: StoredObject): { sources: AppSource[]; multi: boolean } {
  const spec = (app.spec ?? {}) as Json;
  const multi = Array.isArray(spec.sources) && spec.sources.length > 0;
  const raw = multi ? (spec.sources as unknown[]) : spec.source === undefined ? [] : [spec.source];
  const sources = raw.flatMap((s) => {
    const source = s as Json | null;
    if (typeof source !== 'object' || source === null || typeof source.repoURL !== 'string') return [];
    return [
      {
        repoURL: source.repoURL,
        targetRevision: typeof source.targetRevision === 'string' ? source.targetRevision : 'HEAD',
        ...(typeof source.path === 'string' ? { path: source.path } : {}),
        ...(typeof source.chart === 'string' ? { chart: source.chart } : {}),
        ...(typeof source.ref === 'string' ? { ref: source.ref } : {}),
      },
    ];
  });
  return { sources, multi };
}

export function isAutomated(app: StoredObject): boolean {
  const policy = ((app.spec ?? {}) as Json).syncPolicy as Json | undefined;
  return typeof policy?.automated === 'object' && policy.automated !== null;
}

export function status(app: StoredObject): Json {
  if (typeof app.status !== 'object' || app.status === null) app.status = {};
  return app.status as Json;
}

/** The revision(s) the app is compared at and the one its last operation was asked to sync. */
export function revisionKey(revisions: readonly string[]): string {
  return revisions.join(',');
}

export function syncedRevisions(app: StoredObject): string[] {
  const sync = status(app).sync as Json | undefined;
  if (Array.isArray(sync?.revisions)) return sync.revisions.map(String);
  return typeof sync?.revision === 'string' ? [sync.revision] : [];
}

export function attemptedRevisions(app: StoredObject): string[] {
  const operation = ((status(app).operationState as Json | undefined)?.operation as Json | undefined)?.sync as
    | Json
    | undefined;
  if (Array.isArray(operation?.revisions)) return operation.revisions.map(String);
  if (typeof operation?.revision === 'string') return [operation.revision];
  return syncedRevisions(app);
}

export function isOperationRunning(app: StoredObject): boolean {
  return (status(app).operationState as Json | undefined)?.phase === 'Running';
}

/** Removes the refresh request and records the comparison at the resolved revision(s). */
export function applyRefresh(
  app: StoredObject,
  revisions: readonly (string | undefined)[],
  multi: boolean,
  now: string,
): 'compared' | 'unresolved' {
  const annotations = app.metadata.annotations ?? {};
  delete annotations[ARGO_ANNOTATIONS.refresh];
  delete annotations[ARGO_ANNOTATIONS.refreshTimestamp];
  app.metadata.annotations = annotations;
  const state = status(app);
  state.reconciledAt = now;
  const missing = revisions.indexOf(undefined);
  if (missing >= 0 || revisions.length === 0) {
    state.sync = { ...((state.sync as Json | undefined) ?? {}), status: 'Unknown' };
    state.conditions = [
      {
        type: 'ComparisonError',
        message: `Failed to load target state: unable to resolve the target revision of source ${missing + 1} to a commit SHA`,
        lastTransitionTime: now,
      },
    ];
    return 'unresolved';
  }
  const resolved = revisions as string[];
  delete state.conditions;
  const deployed = lastDeployed(app);
  const changed = revisionKey(resolved) !== revisionKey(deployed);
  const unchanged = outcomeOf(app.metadata.annotations) === 'unchanged';
  state.sync = {
    ...(multi ? { revisions: resolved } : { revision: resolved[0] }),
    status: changed && !unchanged ? 'OutOfSync' : 'Synced',
  };
  return 'compared';
}

/** What is running on the cluster: the last successful sync, or the first comparison if none. */
export function lastDeployed(app: StoredObject): string[] {
  const operationState = status(app).operationState as Json | undefined;
  const result = operationState?.syncResult as Json | undefined;
  if (operationState?.phase === 'Succeeded' && result !== undefined) {
    if (Array.isArray(result.revisions)) return result.revisions.map(String);
    if (typeof result.revision === 'string') return [result.revision];
  }
  const history = status(app).history;
  const last = Array.isArray(history) ? (history[history.length - 1] as Json | undefined) : undefined;
  if (Array.isArray(last?.revisions)) return last.revisions.map(String);
  if (typeof last?.revision === 'string') return [last.revision];
  return syncedRevisions(app);
}
