import type { SecretCheck } from '../secrets/secret-check.js';

export const TRIGGERS = ['webhook', 'schedule', 'manual', 'registry'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const TARGET_KINDS = ['Application', 'ApplicationSet', 'GitRepository'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const APP_STATES = [
  'matched',
  'held',
  'blocked',
  'refreshed',
  'syncing',
  'synced',
  'out-of-sync',
  'failed',
  'degraded',
  'timeout',
  'error',
  'superseded',
  'aborted',
] as const;
export type AppState = (typeof APP_STATES)[number];

/**
 * The apps of a rollout a notice names one by one, in listing order: what needs a person (failed, error,
 * degraded, timeout, blocked, out of sync) and what an abort ended. The others are only counted.
 */
export const PROBLEM_STATES: readonly AppState[] = [
  'failed',
  'error',
  'degraded',
  'timeout',
  'blocked',
  'out-of-sync',
  'aborted',
];

export const ROLLOUT_STATUSES = [
  'pending',
  'in-progress',
  'succeeded',
  'failed',
  'partial',
  'blocked',
  'halted',
  'paused',
  'aborted',
] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** A rollout in one of these is not over (a paused or halted one's held apps may still be released). */
export const OPEN_STATUSES: ReadonlySet<string> = new Set(['pending', 'in-progress', 'paused', 'halted']);

/** Why fan-out did or did not refresh an object whose repository matched the push. */
export const DECISIONS = [
  'revision-miss',
  'paths-miss',
  'refreshed',
  'refreshed-unknown-files',
  'blocked',
  'error',
  'superseded',
  'held',
  'aborted',
] as const;
export type Decision = (typeof DECISIONS)[number];

/** One object on one cluster of the fleet. */
export interface AppTarget {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly kind: TargetKind;
}

export const TERMINAL_STATES: ReadonlySet<AppState> = new Set([
  'blocked',
  'synced',
  'out-of-sync',
  'failed',
  'degraded',
  'timeout',
  'error',
  'superseded',
  'aborted',
]);

/** States only move forward: a lower rank never overwrites a higher one. */
export const STATE_RANK: Readonly<Record<AppState, number>> = {
  matched: 0,
  // Held: recorded, not refreshed; released to `matched` (claimed) when its hold lifts.
  held: 0,
  refreshed: 1,
  syncing: 2,
  blocked: 3,
  synced: 3,
  'out-of-sync': 3,
  failed: 3,
  degraded: 3,
  timeout: 3,
  error: 3,
  superseded: 3,
  aborted: 3,
};

export function isTerminal(state: AppState): boolean {
  return TERMINAL_STATES.has(state);
}

/** An app in flight: not ended, and not parked by a hold (a `held` app waits for release control, not Argo CD). */
export function isInFlight(state: AppState): boolean {
  return !TERMINAL_STATES.has(state) && state !== 'held';
}

/** One resource Argo CD reported failing in a sync (`operationState.syncResult.resources[]`). */
export interface ResourceFailure {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly group?: string;
  /** `SyncFailed`, or the hook phase (`Failed`, `Error`) of a failed hook. */
  readonly status: string;
  /** Argo CD's message for it (e.g. an admission webhook's denial), capped in length. */
  readonly message: string;
}

/** An app's ExternalSecret checks counted, when they are too many to keep on its record. */
export interface SecretChecksSummary {
  readonly total: number;
  /** Checks per outcome (`ok`, `missing-secret`, …). */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Checks that warn or block (an outcome other than `ok`, an ESO gap). */
  readonly problems: number;
  /** How many of them the record's `secrets` shows (the first ones). */
  readonly shown: number;
  /** Names the stored full list (`GET /rollouts/{sha}/apps/{cluster}/{namespace}/{name}/secrets`). */
  readonly listId: string;
  readonly chunks: number;
}

export interface AppRecord extends AppTarget {
  readonly state: AppState;
  readonly decision?: Decision;
  readonly syncStatus?: string;
  readonly health?: string;
  readonly revision?: string;
  readonly message?: string;
  readonly refreshedAt?: string;
  readonly finishedAt?: string;
  readonly secrets?: readonly SecretCheck[];
  /** Checks too many for the item: `secrets` holds the first problems, the full list is stored beside it. */
  readonly secretsSummary?: SecretChecksSummary;
  /** The fleet cluster the app deploys to, when the fleet has it (set by fan-out). */
  readonly destination?: string;
  /** Failed resources of a `failed` sync, as Argo CD reported them (capped in count and length). */
  readonly failures?: readonly ResourceFailure[];
  /** Preflight: where the checked manifests came from (`argocd` rendering, or the files in `git`). */
  readonly renderedBy?: 'argocd' | 'git';
  /** Preflight: why Argo CD's rendering was not used, or why nothing could be rendered. */
  readonly renderNote?: string;
  /** With `waves:` in the fleet: the wave of the app's destination. */
  readonly wave?: string;
  /** The ExternalSecret preflight's verdict for this app at this commit, with why (absent: not run). */
  readonly preflight?: PreflightNote;
}

export const PREFLIGHT_VERDICTS = ['pass', 'warn', 'block'] as const;

/** `warn`: refreshed, but something may keep it from syncing well (a chart not rendered, a file that does not parse). */
export interface PreflightNote {
  readonly verdict: (typeof PREFLIGHT_VERDICTS)[number];
  /** Short lines naming the ExternalSecret, key and property, or the file and line; never a value. */
  readonly reasons: readonly string[];
}

/**
 * The reasons an app was let through with a warning, for the API's readers (page, Slack): its verdict's, or
 * for records written before the verdict was kept, their `not-rendered` row. Empty: not a warn.
 */
export function warnReasonsOf(app: AppRecord): readonly string[] {
  if (app.preflight !== undefined) return app.preflight.verdict === 'warn' ? app.preflight.reasons : [];
  const row = app.state === 'blocked' ? undefined : app.secrets?.find((c) => c.outcome === 'not-rendered');
  return row === undefined ? [] : [row.message ?? 'manifests not rendered'];
}

export type StateCounts = Partial<Record<AppState, number>>;

export function countStates(states: Iterable<AppState>): StateCounts {
  const counts: StateCounts = {};
  for (const state of states) counts[state] = (counts[state] ?? 0) + 1;
  return counts;
}

/**
 * The rollout's summary status, derived from its apps only:
 * nothing ended yet → pending/in-progress; all synced → succeeded; none synced → failed
 * (or blocked when every unfinished-looking app is held back); some synced → partial.
 */
export function deriveRolloutStatus(all: readonly AppState[]): RolloutStatus {
  // A superseded app ended well: a later push of its ref carries it on. It neither helps nor fails the status.
  const states = all.filter((s) => s !== 'superseded');
  if (states.length === 0) return 'succeeded';
  if (states.some((s) => !isTerminal(s))) {
    return states.every((s) => s === 'matched' || s === 'held') ? 'pending' : 'in-progress';
  }
  if (states.every((s) => s === 'aborted')) return 'aborted';
  const synced = states.filter((s) => s === 'synced').length;
  if (synced === states.length) return 'succeeded';
  if (states.every((s) => s === 'blocked' || s === 'synced')) return synced === 0 ? 'blocked' : 'partial';
  return synced === 0 ? 'failed' : 'partial';
}

export type DecisionCounts = Partial<Record<Decision, number>>;

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

/** One per-object decision of fan-out, kept for apps that were not refreshed (misses) as well. */
export interface DecisionRecord extends AppTarget {
  readonly decision: Decision;
  readonly detail?: string;
}

/** An app record as stored, with the version its conditional writes use. */
export interface StoredApp extends AppRecord {
  readonly version: number;
  /** When fan-out last took the right to refresh it (repeated deliveries within the window do not patch). */
  readonly claimedAt?: string;
  /** The revision the app was at when it was claimed. */
  readonly fromRevision?: string;
}
