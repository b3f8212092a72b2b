import type { SyncHistoryEntry } from '../audit/types.js';
import {
  type BehindApp,
  type BehindSource,
  behindSources,
  nextMarkers,
  type SourceResolution,
} from './behind.js';
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
  /** Each app's history for the audit, by `namespace/name`. */
  readonly history: ReadonlyMap<string, SyncHistoryEntry[]>;
  /** Every source behind its current commit, with since when. */
  readonly behind: readonly { readonly app: BehindApp; readonly behind: BehindSource }[];
}

/** One read cluster's apps against its memory: behind markers, sync observations and audit history. */
export function passCluster(
  apps: readonly TrackedApp[],
  previous: ClusterMemory | undefined,
  resolve: (source: TrackedSource) => SourceResolution,
  now: number,
  limits: ObservationLimits,
): ClusterPass {
  const next = new Map<string, AppMemory>();
  const history = new Map<string, SyncHistoryEntry[]>();
  const behind: { app: BehindApp; behind: BehindSource }[] = [];
  for (const app of apps) {
    const before = previous?.apps.get(app.key);
    const check = behindSources(app, resolve);
    const markers = nextMarkers(before?.behind ?? [], check, now);
    const deploys = deployObservations(app.raw, app.multiSource);
    const observations = nextObservations(
      before?.observations ?? [],
      deploys,
      {
        ...(app.syncStatus === undefined ? {} : { syncStatus: app.syncStatus }),
        ...(app.syncedRevision === undefined ? {} : { revision: app.syncedRevision }),
      },
      now,
      limits,
    );
    next.set(app.key, { observations, behind: markers });
    history.set(app.key, auditHistory(deploys, observations));
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
  }
  return { apps: next, changed: !sameMemory(previous?.apps, next), history, behind };
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
