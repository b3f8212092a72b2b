import type { SecretCheck } from '../secrets/secret-check.js';
import type { AppState } from './state-model.js';

// One object of the fleet in a rollout: its target, fan-out's decision about it, and its record as stored
// (sync result, preflight, failures).

export const TARGET_KINDS = ['Application', 'ApplicationSet', 'GitRepository'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

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

export type DecisionCounts = Partial<Record<Decision, number>>;

/** One object on one cluster of the fleet. */
export interface AppTarget {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly kind: TargetKind;
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
