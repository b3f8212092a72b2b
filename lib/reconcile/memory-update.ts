import type { SyncHistoryEntry } from '../audit/types.js';
import {
  type BehindApp,
  type BehindSource,
  behindSources,
  nextMarkers,
  type SourceResolution,
} from './behind.js';
import { createInterner, type Interner } from './intern.js';
import {
  auditHistory,
  deployObservations,
  nextObservations,
  type ObservationLimits,
} from './observations.js';
import type { AppMemory, ClusterMemory } from './ports.js';
import type { TrackedApp, TrackedSource } from './tracked-app.js';

export interface ClusterPass {
  /** The cluster's memory after this pass (apps no longer listed are forgotten). */
  readonly apps: ReadonlyMap<string, AppMemory>;
  /** Whether it differs from what was loaded (only then is it written). */
  readonly changed: boolean;
  /** Every source behind its current commit, with since when. */
  readonly behind: readonly { readonly app: BehindApp; readonly behind: BehindSource }[];
}

/** One read cluster's apps against its memory, as its pages arrive. */
export interface ClusterPassBuilder {
  /** Notes the app's behind markers and sync observations; returns its history for the audit. */
  add(app: TrackedApp): SyncHistoryEntry[];
  /** The cluster's memory after every page was added. */
  finish(): ClusterPass;
}

/**
 * Behind markers, sync observations and audit history for one read cluster. What outlives a page is the
 * small per-app memory (observations, markers; a new observation's revision is shared, not one copy per app) and the behind list;
 * the history is handed to the audit of the app's page and not kept.
 */
export function startClusterPass(
  previous: ClusterMemory | undefined,
  resolve: (source: TrackedSource) => SourceResolution,
  now: number,
  limits: ObservationLimits,
  shared: Pick<Interner, 'text'> = createInterner(),
): ClusterPassBuilder {
  const next = new Map<string, AppMemory>();
  const behind: { app: BehindApp; behind: BehindSource }[] = [];
  const intern = shared.text;
  return {
    add(app) {
      const before = previous?.apps.get(app.key);
      const check = behindSources(app, resolve);
      const markers = nextMarkers(before?.behind ?? [], check, now);
      const deploys = deployObservations(app.raw, app.multiSource);
      const observations = nextObservations(
        before?.observations ?? [],
        deploys,
        {
          ...(app.syncStatus === undefined ? {} : { syncStatus: intern(app.syncStatus) }),
          ...(app.syncedRevision === undefined ? {} : { revision: intern(app.syncedRevision) }),
        },
        now,
        limits,
      );
      next.set(app.key, { observations, behind: markers });
      for (const source of check.behind) {
        const since = markers.find((m) => m.source === source.source && m.sha === source.sha)?.since ?? now;
        behind.push({
          app: {
            cluster: app.cluster,
            namespace: app.app.namespace,
            name: app.app.name,
            synced: source.synced,
            since,
          },
          behind: source,
        });
      }
      return auditHistory(deploys, observations);
    },
    finish: () => ({ apps: next, changed: !sameMemory(previous?.apps, next), behind }),
  };
}

function sameMemory(
  a: ReadonlyMap<string, AppMemory> | undefined,
  b: ReadonlyMap<string, AppMemory>,
): boolean {
  if (a === undefined) return b.size === 0;
  if (a.size !== b.size) return false;
  for (const [key, value] of b) {
    const other = a.get(key);
    if (other === undefined || JSON.stringify(other) !== JSON.stringify(value)) return false;
  }
  return true;
}
