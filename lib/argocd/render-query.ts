import type { Application, ApplicationSource } from './application.js';

/** One `GET /api/v1/applications/{name}/manifests` request, as Argo CD's `ApplicationManifestQuery` has it. */
export interface ManifestsQuery {
  readonly name: string;
  /** The namespace the Application lives in (`appNamespace`; Argo CD's own namespace by default). */
  readonly appNamespace: string;
  /** The app's project: with it, Argo CD answers 404 for a missing app instead of a bare 403. */
  readonly project?: string;
  /** Single-source (and hydrator) apps: the revision to render instead of `targetRevision`. */
  readonly revision?: string;
  /** Multi-source apps: each listed source (1-based `position`) renders at its `revision`. */
  readonly sources?: readonly { readonly position: number; readonly revision: string }[];
}

/** The revision one source should be rendered at, or undefined to leave it at its `targetRevision`. */
export type SourceRevision = (source: ApplicationSource, index: number) => string | undefined;

/**
 * What to ask Argo CD's manifests endpoint for, the way its `GetManifests` reads the query: a multi-source
 * app names each source to move by its 1-based position (`sourcePositions` + `revisions`); a single-source
 * app takes `revision`; a hydrator app is rendered from its dry source. Undefined when no source moves.
 */
export function renderQuery(
  raw: unknown,
  app: Application,
  revisionOf: SourceRevision,
): ManifestsQuery | undefined {
  const spec = (raw as { spec?: { sources?: unknown; sourceHydrator?: unknown } } | undefined)?.spec;
  const hydrator = typeof spec?.sourceHydrator === 'object' && spec.sourceHydrator !== null;
  const multiSource = !hydrator && Array.isArray(spec?.sources) && spec.sources.length > 0;
  const base = {
    name: app.name,
    appNamespace: app.namespace,
    ...(app.project === '' ? {} : { project: app.project }),
  };
  if (multiSource) {
    const sources = app.sources.flatMap((source, index) => {
      const revision = revisionOf(source, index);
      return revision === undefined ? [] : [{ position: index + 1, revision }];
    });
    return sources.length === 0 ? undefined : { ...base, sources };
  }
  const index = hydrator ? app.sources.findIndex((s) => s.hydrator === 'dry') : 0;
  const source = app.sources[index];
  const revision = source === undefined ? undefined : revisionOf(source, index);
  return revision === undefined ? undefined : { ...base, revision };
}
