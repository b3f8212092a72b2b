import type { UngatedInstance } from '../rollout-model.js';
import type { SyncedSummary } from './app-state.js';
import type { StoredPushEvent } from './rollout-writer.js';

/** What release control reads of a rollout besides its apps. */
export interface ReleaseRecords {
  /** The summary with each wave's view and the control flags (no recomputation). */
  viewSummary(sha: string): Promise<SyncedSummary | undefined>;
  pushEvent(sha: string): Promise<StoredPushEvent | undefined>;
  /** Moves the rollout's deadline on to `deadline` (never back). */
  extendDeadline(sha: string, deadline: string): Promise<void>;
  /** Notes Argo CD instances that poll Git themselves where this rollout holds apps without a pin. */
  addUngated(sha: string, instances: readonly UngatedInstance[]): Promise<void>;
}
