import { type Application, type ApplicationSource, parseApplication } from '../argocd/application.js';
import { at, isRecord, list, stringList, text } from '../audit/k8s-object.js';
import { identify } from '../matching/raw-object.js';

/** One source of an app whose revision Argo CD reports in `status.sync`. */
export interface TrackedSource {
  /** Position in `status.sync.revisions` (multi-source), else 0. */
  readonly index: number;
  readonly source: ApplicationSource;
  /** The commit Argo CD last compared this source at (`status.sync.revision(s)`). */
  readonly synced?: string;
  /** Argo CD `directory.recurse`: false unless the source says so. */
  readonly recurse: boolean;
}

/** An Application read off a cluster, with what the reconciliation compares. */
export interface TrackedApp {
  readonly cluster: string;
  readonly raw: unknown;
  readonly app: Application;
  /** `namespace/name`, the app's key in reconcile memory. */
  readonly key: string;
  readonly multiSource: boolean;
  readonly sources: readonly TrackedSource[];
  readonly syncStatus?: string;
  /** `status.sync.revision`, or `revisions` joined by `,` for a multi-source app. */
  readonly syncedRevision?: string;
}

export type Tracked =
  | { readonly ok: true; readonly value: TrackedApp }
  | { readonly ok: false; readonly namespace: string; readonly name: string; readonly reason: string };

/**
 * Reads an Application for the reconciliation; never throws. A hydrator app is compared on its sync
 * source only: `status.sync.revision` is the hydrated commit, and the dry source is not deployed.
 */
export function trackApplication(cluster: string, raw: unknown): Tracked {
  const parsed = parseApplication(raw);
  if (!parsed.ok) {
    const { namespace = '', name = '' } = identify(raw);
    return { ok: false, namespace, name, reason: parsed.reason };
  }
  const app = parsed.value;
  const hydrator = isRecord(at(raw, 'spec', 'sourceHydrator'));
  const rawSources = list(at(raw, 'spec', 'sources'));
  const multiSource = !hydrator && rawSources.length > 0;
  // Kept as is (not filtered) so each entry stays at its source's index.
  const syncedList = list(at(raw, 'status', 'sync', 'revisions'));
  const syncedOne = text(at(raw, 'status', 'sync', 'revision'));
  const sources = app.sources
    .filter((source) => source.hydrator !== 'dry')
    .map((source, i): TrackedSource => {
      // An ignored multi-source entry leaves a gap: `position` keeps each source at its own index.
      const index = source.position ?? i;
      const rawSource = multiSource ? rawSources[index] : hydrator ? undefined : at(raw, 'spec', 'source');
      const synced = multiSource ? text(syncedList[index]) : syncedOne;
      return {
        index,
        source,
        ...(synced === undefined ? {} : { synced }),
        recurse: at(rawSource, 'directory', 'recurse') === true,
      };
    });
  const syncStatus = text(at(raw, 'status', 'sync', 'status'));
  const joined = stringList(syncedList);
  const syncedRevision = multiSource
    ? joined.length > 0 && joined.length === syncedList.length
      ? joined.join(',')
      : undefined
    : syncedOne;
  return {
    ok: true,
    value: {
      cluster,
      raw,
      app,
      key: `${app.namespace}/${app.name}`,
      multiSource,
      sources,
      ...(syncStatus === undefined ? {} : { syncStatus }),
      ...(syncedRevision === undefined ? {} : { syncedRevision }),
    },
  };
}
