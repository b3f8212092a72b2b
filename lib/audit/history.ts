import { isRecord, parseTime, text } from './k8s-object.js';
import type { SyncHistoryEntry } from './types.js';

export interface Observation {
  readonly at: number;
  readonly syncStatus?: string;
  readonly revision?: string;
}

/** The recorded history in time order; entries without a readable time are left out. */
export function observations(history: readonly SyncHistoryEntry[] | undefined): Observation[] {
  const out: Observation[] = [];
  for (const entry of history ?? []) {
    if (!isRecord(entry)) continue;
    const at = parseTime(entry.at);
    if (at === undefined) continue;
    const syncStatus = text(entry.syncStatus);
    const revision = text(entry.revision);
    out.push({
      at,
      ...(syncStatus === undefined ? {} : { syncStatus }),
      ...(revision === undefined ? {} : { revision }),
    });
  }
  return out.sort((a, b) => a.at - b.at);
}
