import { controlLine, summaryLine } from '../commit-status/plan.js';
import { RETRYABLE } from '../release/control.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import type { AppState, RolloutStatus } from '../rollouts/state-model.js';
import { notSyncedText, summaryTable } from './plan-markdown.js';

export const CHECK_RUN_NAME = 'gitops-sync';
/** The `requested_action.identifier` the Retry button sends back (GitHub: at most 20 characters). */
export const RETRY_ACTION = 'retry';

export type CheckRunConclusion = 'success' | 'failure' | 'cancelled';

export interface CheckRunAction {
  /** At most 20 characters. */
  readonly label: string;
  /** At most 40 characters. */
  readonly description: string;
  /** At most 20 characters. */
  readonly identifier: string;
}

/** What the check run should show for one view of the rollout (the body of a create or an update). */
export interface PlannedCheckRun {
  readonly status: 'in_progress' | 'completed';
  readonly conclusion?: CheckRunConclusion;
  readonly title: string;
  /** Markdown: the clusters × states table (and the waves, with `waves:`). */
  readonly summary: string;
  /** Markdown: each app not synced, with its reason. */
  readonly text: string;
  readonly detailsUrl?: string;
  /** Empty clears a button shown before (GitHub keeps actions until an update replaces them). */
  readonly actions: readonly CheckRunAction[];
  /**
   * The check run is completed already and this view is not: GitHub never moves a completed check run back
   * to `in_progress`, so only the output and the button are updated (the conclusion changes at the end).
   */
  readonly outputOnly?: true;
}

/** An in-progress view of a rollout whose check run has completed before (a resume after a halt, a retry). */
export function reopened(plan: PlannedCheckRun): PlannedCheckRun {
  const { status: _status, conclusion: _conclusion, ...rest } = plan;
  return { ...rest, status: 'in_progress', title: `running again · ${plan.title}`, outputOnly: true };
}

export const RETRY: CheckRunAction = {
  label: 'Retry failed',
  description: 'Preflight and refresh failed apps again',
  identifier: RETRY_ACTION,
};

/** `success` when every app synced, `cancelled` when aborted; any other end (or a halt) is a `failure`. */
export function conclusionOf(status: RolloutStatus): CheckRunConclusion | undefined {
  switch (status) {
    case 'succeeded':
      return 'success';
    case 'aborted':
      return 'cancelled';
    case 'failed':
    case 'partial':
    case 'halted':
    case 'blocked':
      return 'failure';
    default:
      return undefined;
  }
}

/** The check run for this view of the rollout; none for a rollout without apps (as for commit statuses). */
export function planCheckRun(
  rollout: Rollout,
  options: { readonly pageUrl?: string } = {},
): PlannedCheckRun | undefined {
  const states: AppState[] = [
    ...rollout.apps.map((a) => a.state),
    ...Object.keys(rollout.clusterErrors ?? {}).map((): AppState => 'error'),
  ];
  if (states.length === 0) return undefined;
  const conclusion = conclusionOf(rollout.status);
  const control = controlLine(rollout);
  const counts = summaryLine(states);
  const retryable = rollout.status !== 'aborted' && rollout.apps.some((a) => RETRYABLE.has(a.state));
  return {
    status: conclusion === undefined ? 'in_progress' : 'completed',
    ...(conclusion === undefined ? {} : { conclusion }),
    title: control === undefined ? counts : `${control} · ${counts}`.slice(0, 200),
    summary: summaryTable(rollout),
    text: notSyncedText(rollout),
    ...(options.pageUrl === undefined ? {} : { detailsUrl: options.pageUrl }),
    actions: retryable ? [RETRY] : [],
  };
}
