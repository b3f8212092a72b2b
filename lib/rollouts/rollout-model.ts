import type { AppRecord, DecisionCounts } from './app-model.js';
import type { RolloutStatus, StateCounts } from './state-model.js';

// The commit-level records: a rollout's summary with its clusters' progress and waves, operators' actions,
// Argo CD instances that poll Git themselves, and release control's freezes.

export const TRIGGERS = ['webhook', 'schedule', 'manual', 'registry'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** The commit-level record: what was pushed, and the status derived from its apps. */
export interface RolloutSummary {
  readonly sha: string;
  readonly repo: string;
  readonly repoUrl: string;
  readonly ref: string;
  /** Every ref this commit arrived on (a branch push and a tag at the same commit share one rollout). */
  readonly refs: readonly string[];
  readonly provider?: string;
  readonly trigger: Trigger;
  readonly receivedAt: string;
  readonly status: RolloutStatus;
  readonly counts: StateCounts;
  readonly decisions: DecisionCounts;
  readonly author?: string;
  readonly commitTitle?: string;
  readonly commitUrl?: string;
  /** Found by the scheduled reconciliation: the webhook for this commit never arrived. */
  readonly missedWebhook?: boolean;
  readonly deadline?: string;
  readonly finishedAt?: string;
  /** Clusters fan-out could not read, with the reason; each counts as an `error` in the status. */
  readonly clusterErrors?: Readonly<Record<string, string>>;
  /** Where each cluster's work item stands: planned, retrying, done or failed. */
  readonly clusters?: Readonly<Record<string, ClusterProgress>>;
  /** With `waves:` in the fleet: each wave of this rollout, in order. */
  readonly waves?: readonly WaveProgress[];
  /** Operators' actions on this rollout, oldest first. */
  readonly actions?: readonly OperatorAction[];
  /** Argo CD instances involved that poll Git themselves: a hold there is not guaranteed. */
  readonly ungated?: readonly UngatedInstance[];
}

export const WAVE_STATES = ['waiting', 'open', 'soaking', 'done', 'halted', 'superseded', 'aborted'] as const;
export type WaveState = (typeof WAVE_STATES)[number];

export interface WaveProgress {
  readonly name: string;
  readonly state: WaveState;
  /** The destination clusters of the wave (fleet names). */
  readonly clusters: readonly string[];
  readonly openedAt?: string;
  readonly doneAt?: string;
  /** While soaking: when the soak ends. */
  readonly soakUntil?: string;
  /** Why the wave halted (counts and the first apps), or what superseded it. */
  readonly reason?: string;
  /**
   * A resume with `skipFailed` let this halted wave pass by its failures. Kept on the wave: the apps still
   * moving when the operator resumed end later, and every judgement from then on honours it.
   */
  readonly skipFailed?: boolean;
}

export const OPERATOR_ACTIONS = ['pause', 'resume', 'abort', 'retry', 'open-wave', 'halt'] as const;
export type OperatorActionName = (typeof OPERATOR_ACTIONS)[number];

export interface OperatorAction {
  readonly action: OperatorActionName;
  /** The caller's IAM principal ARN in AWS; locally `token` or `local`; `gitops-sync` for the engine's own. */
  readonly by: string;
  readonly at: string;
  readonly detail?: string;
}

export interface UngatedInstance {
  readonly cluster: string;
  readonly namespace: string;
  readonly reason: string;
}

/** A freeze: every matching app of every push is held (recorded, not refreshed) until it is lifted or ends. */
export interface Freeze {
  readonly id: string;
  /** Canonical repository key (`host/owner/name`), or none: every repository. */
  readonly repo?: string;
  /** A fleet cluster name or glob (`*`, `?`) matched against the app's destination and its Argo CD cluster. */
  readonly cluster?: string;
  readonly reason: string;
  readonly until?: string;
  readonly by: string;
  readonly at: string;
}

export const CLUSTER_PROGRESS = ['planned', 'retrying', 'done', 'failed'] as const;
export type ClusterProgress = (typeof CLUSTER_PROGRESS)[number];

export interface Rollout extends RolloutSummary {
  readonly apps: readonly AppRecord[];
}
