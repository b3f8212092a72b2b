/**
 * What the rollout says about the things it shows on the Git host (`feedback` on `GET /rollouts/{sha}`):
 * one entry per check run, deployment or commit status, with what the host shows now and the last error
 * the host gave, if the last try failed. A host that is down never fails or delays the rollout itself.
 */
export type FeedbackKind = 'commit-status' | 'check-run' | 'deployment';

export interface FeedbackEntry {
  readonly kind: FeedbackKind;
  /** What on the host: the status context, `gitops-sync` for the check run, the environment of a deployment. */
  readonly target: string;
  /** What the host shows now (`pending`, `in_progress`, `success`, `failure`, `inactive`, ...); `not posted` after a failed try. */
  readonly state: string;
  /** The host's last error, when the last try failed (no token, no body: never a secret). */
  readonly error?: string;
  readonly errorAt?: string;
}
