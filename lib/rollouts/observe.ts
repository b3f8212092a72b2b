import { type ObservedState, observeApplication } from '../argocd/sync-state.js';
import type { TargetKind } from './app-model.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export const APPSET_REFRESH_ANNOTATION = 'argocd.argoproj.io/application-set-refresh';

/** An ApplicationSet has done its part once its controller removed the refresh annotation. */
export function observeApplicationSet(appSet: unknown): ObservedState {
  const annotations = obj(obj(obj(appSet).metadata).annotations);
  if (annotations[APPSET_REFRESH_ANNOTATION] !== undefined) {
    return { state: 'refreshed', message: 'waiting for the ApplicationSet controller' };
  }
  const conditions = Array.isArray(obj(obj(appSet).status).conditions)
    ? (obj(obj(appSet).status).conditions as unknown[]).map(obj)
    : [];
  const error = conditions.find((c) => c.type === 'ErrorOccurred' && c.status === 'True');
  if (error !== undefined)
    return { state: 'failed', message: str(error.message) ?? 'ApplicationSet reports an error' };
  return { state: 'synced', message: 'ApplicationSet regenerated its Applications' };
}

/**
 * A Flux GitRepository has fetched the commit when its artifact revision names it (`main@sha1:<sha>`)
 * and Ready is True; Ready False for that fetch is a failure.
 */
export function observeGitRepository(repository: unknown, sha: string): ObservedState {
  const status = obj(obj(repository).status);
  const revision = str(obj(status.artifact).revision);
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(obj) : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const base = revision === undefined ? {} : { revision };
  if (revision !== undefined && (revision === sha || revision.endsWith(`:${sha}`))) {
    if (ready?.status === 'True') return { state: 'synced', ...base, syncStatus: 'Ready' };
    if (ready?.status === 'False')
      return { state: 'failed', ...base, message: str(ready.message) ?? 'not ready' };
    return { state: 'syncing', ...base, message: 'waiting for Ready' };
  }
  if (ready?.status === 'False' && str(ready.reason)?.includes('Failed')) {
    return { state: 'failed', ...base, message: str(ready.message) ?? 'fetch failed' };
  }
  return { state: 'refreshed', ...base, message: 'waiting for Flux to fetch the commit' };
}

export function observeTarget(kind: TargetKind, live: unknown, sha: string): ObservedState {
  switch (kind) {
    case 'Application':
      return observeApplication(live, sha);
    case 'ApplicationSet':
      return observeApplicationSet(live);
    case 'GitRepository':
      return observeGitRepository(live, sha);
  }
}
