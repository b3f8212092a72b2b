import type { RolloutSummary } from '../rollouts/rollout-model.js';

export interface RolloutFilter {
  /** The rollout's `repo` (the host's full name, e.g. `org/gitops`). */
  readonly repo?: string;
  /** A ref the commit arrived on: `refs/heads/main`, or `main` for a branch or tag of that name. */
  readonly ref?: string;
}

export interface RolloutList {
  readonly items: readonly RolloutSummary[];
  readonly cursor?: string;
}

/** Finding rollouts: newest first, and by a short SHA. */
export interface RolloutIndex {
  list(filter: RolloutFilter, page: { limit: number; cursor?: string }): Promise<RolloutList>;
  /** Full SHAs of the rollouts starting with `prefix` (7+ hex characters), at most `max`. */
  shasWithPrefix(prefix: string, max: number): Promise<readonly string[]>;
}
