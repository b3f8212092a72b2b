import type { Clock } from '../ports.js';
import { REFRESH_ANNOTATION } from './application.js';

export const HYDRATE_ANNOTATION = 'argocd.argoproj.io/hydrate';
export const APPLICATION_SET_REFRESH_ANNOTATION = 'argocd.argoproj.io/application-set-refresh';
export const FLUX_REQUESTED_AT_ANNOTATION = 'reconcile.fluxcd.io/requestedAt';

/** A JSON merge patch (`application/merge-patch+json`) that only sets annotations. */
export interface AnnotationPatch {
  readonly metadata: { readonly annotations: Readonly<Record<string, string>> };
}

function annotationPatch(annotations: Record<string, string>): AnnotationPatch {
  return { metadata: { annotations } };
}

/**
 * `refresh: normal` on an Application, plus `hydrate: normal` when its hydrator dry source matched (as
 * Argo CD's webhook does). Undefined when there is nothing to do: a pending `hard` refresh already
 * re-reads Git and must not be downgraded to `normal` (Argo CD's blind patch does downgrade it).
 */
export function applicationRefreshPatch(
  app: { readonly refreshAnnotation?: string },
  options: { readonly hydrate?: boolean } = {},
): AnnotationPatch | undefined {
  const annotations: Record<string, string> = {};
  if (app.refreshAnnotation !== 'hard') annotations[REFRESH_ANNOTATION] = 'normal';
  if (options.hydrate === true) annotations[HYDRATE_ANNOTATION] = 'normal';
  return Object.keys(annotations).length === 0 ? undefined : annotationPatch(annotations);
}

/** The ApplicationSet controller re-runs its generators without the revision cache while this is set. */
export function applicationSetRefreshPatch(): AnnotationPatch {
  return annotationPatch({ [APPLICATION_SET_REFRESH_ANNOTATION]: 'true' });
}

/** What `flux reconcile source git` sets: any new value makes source-controller reconcile at once. */
export function gitRepositoryRefreshPatch(clock: Clock): AnnotationPatch {
  return annotationPatch({ [FLUX_REQUESTED_AT_ANNOTATION]: clock.now().toISOString() });
}
