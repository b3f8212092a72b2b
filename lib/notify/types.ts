import type { AppRecord } from '../rollouts/app-model.js';
import type { OperatorAction, Trigger, UngatedInstance, WaveProgress } from '../rollouts/rollout-model.js';
import type { RolloutStatus, StateCounts } from '../rollouts/state-model.js';

/**
 * The counts of a rollout whose snapshot names only some apps: the summary's views. Without it, `apps` is
 * every app record and the counts are taken from them.
 */
export interface RolloutTally {
  /** Apps per state over the whole rollout (a cluster fan-out could not read counts as one `error`). */
  readonly counts: StateCounts;
  /** Apps per state per cluster holding them. */
  readonly clusters: Readonly<Record<string, StateCounts>>;
  /** Apps per state per wave. */
  readonly waves: Readonly<Record<string, StateCounts>>;
  /** Apps the preflight let through with a warning, in all. */
  readonly warned: number;
}

/**
 * What the notifier reads of one rollout: the summary plus its app records. With `tally`, `apps` holds only
 * the apps the notice names (the first problem apps and warned apps: lib/rollouts/rollout-digest.ts) and
 * the counts come from the tally; without, `apps` is every app record.
 */
export interface RolloutSnapshot {
  readonly sha: string;
  readonly repo: { readonly fullName: string; readonly webUrl: string };
  /** Full ref as pushed (`refs/heads/main`) or a short name. */
  readonly ref: string;
  readonly trigger: Trigger;
  readonly author: string;
  readonly commitTitle: string;
  readonly commitUrl?: string;
  readonly status: RolloutStatus;
  readonly apps: readonly AppRecord[];
  readonly tally?: RolloutTally;
  /** Every ref the commit arrived on (a tag pushed later on the same commit is named). */
  readonly refs?: readonly string[];
  readonly receivedAt?: string;
  /** When tracking gives up (apps still moving then end `timeout`). */
  readonly deadline?: string;
  readonly finishedAt?: string;
  /** When the notifier renders it (for the elapsed time); set by the notifier from its clock. */
  readonly renderedAt?: string;
  /** The rollout's page, `{PUBLIC_URL}/ui/rollouts/{sha}`, when PUBLIC_URL is known; set by the notifier. */
  readonly pageUrl?: string;
  /** Argo CD UI per cluster that names `argocdUrl` in the fleet file, for links; set by the notifier. */
  readonly argocdUrls?: Readonly<Record<string, string>>;
  /** With `waves:` in the fleet: each wave of the rollout, in order. */
  readonly waves?: readonly WaveProgress[];
  /** Operators' actions, oldest first (the message names the last one). */
  readonly actions?: readonly OperatorAction[];
  /** Argo CD instances that poll Git themselves: a hold there is not guaranteed. */
  readonly ungated?: readonly UngatedInstance[];
}

export interface PlainText {
  readonly type: 'plain_text';
  readonly text: string;
  readonly emoji?: boolean;
}

export interface MrkdwnText {
  readonly type: 'mrkdwn';
  readonly text: string;
}

/** The few Block Kit blocks the messages use (a structural subset of Slack's `KnownBlock`). */
export type SlackBlock =
  | { readonly type: 'header'; readonly text: PlainText }
  | { readonly type: 'section'; readonly text: MrkdwnText }
  | { readonly type: 'divider' }
  | { readonly type: 'context'; readonly elements: readonly MrkdwnText[] };

/** A message ready to send: `text` is the fallback shown in notifications and screen readers. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/** What Slack calls were made, skipped or failed for one notice; the notifier never throws. */
export const NOTICE_ACTIONS = ['post', 'update', 'reply', 'failure-message', 'final-message'] as const;
export type NoticeAction = (typeof NOTICE_ACTIONS)[number];

export const SKIP_REASONS = [
  'unchanged',
  'already-sent',
  'stale-snapshot',
  'claimed-elsewhere',
  'not-ended',
  'deferred',
  'slack-off',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const NOTICE_FAILURES = ['rate-limited', 'unavailable', 'rejected', 'store'] as const;
export type NoticeFailure = (typeof NOTICE_FAILURES)[number];

export interface NoticeSent {
  readonly action: NoticeAction;
  /** `cluster/namespace/name` (kind when not an Application) for per-app notices. */
  readonly app?: string;
  /** Several apps named in one overflow reply. */
  readonly apps?: number;
}

export interface NoticeSkipped {
  readonly action: NoticeAction;
  readonly reason: SkipReason;
}

export interface NoticeError {
  readonly action: NoticeAction | 'store';
  readonly failure: NoticeFailure;
  /** Safe to log: never a token, webhook URL or secret value. */
  readonly message: string;
  readonly app?: string;
}

export interface NotifyResult {
  readonly sent: readonly NoticeSent[];
  readonly skipped: readonly NoticeSkipped[];
  readonly errors: readonly NoticeError[];
}
