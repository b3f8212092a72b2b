import type { StoredObject } from './resource-store.js';
import { ARGO_ANNOTATIONS, timestamp } from './sim-annotations.js';

type Json = Record<string, unknown>;

/** A GitRepository's reconcile request is pending while its requestedAt differs from what was handled. */
export function fluxRequestPending(object: StoredObject): string | undefined {
  const requested = object.metadata.annotations?.[ARGO_ANNOTATIONS.fluxRequestedAt];
  const handled = ((object.status ?? {}) as Json).lastHandledReconcileAt;
  return requested !== undefined && requested !== handled ? requested : undefined;
}

/** The ref a GitRepository follows, as `resolveRevision` takes it, and how Flux prefixes the artifact. */
export function fluxRef(object: StoredObject): { revision: string; label: string } {
  const ref = (((object.spec ?? {}) as Json).ref ?? {}) as Json;
  for (const field of ['commit', 'name', 'semver', 'tag', 'branch'] as const) {
    const value = ref[field];
    if (typeof value === 'string' && value !== '') {
      return { revision: value, label: field === 'commit' ? '' : field === 'semver' ? '' : value };
    }
  }
  return { revision: 'master', label: 'master' };
}

/** Records a handled reconcile request and the artifact of the resolved commit (or the failure). */
export function applyFluxReconcile(
  object: StoredObject,
  requestedAt: string,
  sha: string | undefined,
  now: Date,
): void {
  const state = ((object.status ?? {}) as Json) ?? {};
  const { revision, label } = fluxRef(object);
  state.lastHandledReconcileAt = requestedAt;
  state.observedGeneration = object.metadata.generation ?? 1;
  if (sha === undefined) {
    state.conditions = [
      {
        type: 'Ready',
        status: 'False',
        reason: 'GitOperationFailed',
        message: `failed to checkout and determine revision: unable to resolve '${revision}'`,
        lastTransitionTime: timestamp(now),
      },
    ];
  } else {
    const artifactRevision = label === '' ? `sha1:${sha}` : `${label}@sha1:${sha}`;
    state.artifact = { revision: artifactRevision, lastUpdateTime: timestamp(now) };
    state.conditions = [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Succeeded',
        message: `stored artifact for revision '${artifactRevision}'`,
        lastTransitionTime: timestamp(now),
      },
    ];
  }
  object.status = state;
}
