import { at, list, parseTime, stringList, text } from '../audit/k8s-object.js';
import type { SyncHistoryEntry } from '../audit/types.js';
import type { AppObservation } from './ports.js';

/**
 * The deploys Argo CD recorded in `status.history[]`, as observations: OutOfSync when a sync started
 * (an automated sync only starts OutOfSync), Synced when it was deployed. Entries without a time are left out.
 */
export function deployObservations(raw: unknown, multiSource: boolean): AppObservation[] {
  const out: AppObservation[] = [];
  for (const entry of list(at(raw, 'status', 'history'))) {
    const deployedAt = parseTime(at(entry, 'deployedAt'));
    if (deployedAt === undefined) continue;
    const started = parseTime(at(entry, 'deployStartedAt'));
    const revisions = stringList(at(entry, 'revisions'));
    const revision = multiSource && revisions.length > 0 ? revisions.join(',') : text(at(entry, 'revision'));
    const rev = revision === undefined ? {} : { revision };
    out.push({ at: Math.min(started ?? deployedAt, deployedAt), syncStatus: 'OutOfSync', ...rev });
    out.push({ at: deployedAt, syncStatus: 'Synced', ...rev });
  }
  return out;
}

export interface CurrentSync {
  readonly syncStatus?: string;
  readonly revision?: string;
}

export interface ObservationLimits {
  readonly windowMs: number;
  readonly max: number;
}

/**
 * The stored observations after this pass: the current status is added when it differs from the latest
 * thing known (stored or deployed), so an unbroken run keeps its start; older ones fall out of the window
 * (the latest always stays, so a long run still has its start).
 */
export function nextObservations(
  stored: readonly AppObservation[],
  deploys: readonly AppObservation[],
  current: CurrentSync,
  now: number,
  limits: ObservationLimits,
): AppObservation[] {
  const next = [...stored];
  const latest = timeline(deploys, stored).at(-1);
  if (
    current.syncStatus !== undefined &&
    (latest === undefined || latest.syncStatus !== current.syncStatus || latest.revision !== current.revision)
  ) {
    next.push({
      at: now,
      syncStatus: current.syncStatus,
      ...(current.revision === undefined ? {} : { revision: current.revision }),
    });
  }
  const from = now - limits.windowMs;
  const kept = next.filter((o, i) => o.at >= from || i === next.length - 1);
  return kept.slice(-Math.max(1, limits.max));
}

/** What the audit rules read as history: deploys and observations in time order. */
export function auditHistory(
  deploys: readonly AppObservation[],
  stored: readonly AppObservation[],
): SyncHistoryEntry[] {
  return timeline(deploys, stored).map((o) => ({
    at: new Date(o.at).toISOString(),
    syncStatus: o.syncStatus,
    ...(o.revision === undefined ? {} : { revision: o.revision }),
  }));
}

function timeline(deploys: readonly AppObservation[], stored: readonly AppObservation[]): AppObservation[] {
  return [...deploys, ...stored].sort((a, b) => a.at - b.at);
}
