import type { AppRecord } from './app-model.js';
import type { RolloutSummary } from './rollout-model.js';
import type { StateCounts } from './state-model.js';

/**
 * What a notice reads of a rollout instead of every app record: the summary, its clusters' and waves'
 * state counts (the summary's views), and a bounded list of the apps it names one by one (problem apps in
 * listing order, then apps the preflight warned about). O(problems named), whatever the rollout's size.
 */
export interface RolloutDigest {
  readonly summary: RolloutSummary;
  /** Apps per state, per cluster holding them (the summary's per-cluster views). */
  readonly clusters: Readonly<Record<string, StateCounts>>;
  /** Apps per state, per cluster they deploy to (the same as `clusters` without hub and spoke). */
  readonly destinations: Readonly<Record<string, StateCounts>>;
  /** Apps per state, per wave (with `waves:` in the fleet). */
  readonly waves: Readonly<Record<string, StateCounts>>;
  /** The first problem apps (failed, error, degraded, timeout, blocked, out of sync, aborted), in listing order. */
  readonly problems: readonly AppRecord[];
  /** The first apps let through with a warning, and how many there are in all. */
  readonly warned: readonly AppRecord[];
  readonly warnedCount: number;
}

export interface RolloutDigestReader {
  /** Undefined when no such rollout; `limit` bounds the problem apps and the warned apps read (0: none). */
  digest(
    sha: string,
    limit: number,
    /** `reread`: read the summary item again even if this container has just written it. */
    options?: { readonly reread?: boolean },
  ): Promise<RolloutDigest | undefined>;
}
