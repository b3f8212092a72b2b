/** What the reconcile function gathers for one Argo CD Application before auditing it. Plain data only. */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One parsed YAML document of the app's manifests, with the repository path it came from. */
export interface ManifestDoc {
  readonly path: string;
  readonly doc: unknown;
}

export interface AppManifests {
  /** Parsed documents at the app's synced revision (plain YAML, Kustomize output). */
  readonly docs: readonly ManifestDoc[];
  /** The source could not be rendered here (a Helm chart's templates): rules that read manifests skip. */
  readonly notRendered?: boolean;
  /** Reading stopped at a size/count limit: what is here is true, what is absent may be missing. */
  readonly limitReached?: boolean;
  /** Where the documents came from: Argo CD's rendering, or the files in Git. Goes into the evidence. */
  readonly renderedBy?: 'argocd' | 'git';
  /** Why Argo CD's rendering was not used (it failed; Git stood in, so the documents may be incomplete). */
  readonly renderNote?: string;
}

/** One recorded observation of the app's sync status (from the orchestrator's own history). */
export interface SyncHistoryEntry {
  readonly at: string;
  readonly syncStatus?: string;
  readonly health?: string;
  readonly revision?: string;
}

export interface AuditInput {
  /** The fleet cluster the Application lives on (the Argo CD cluster, not its destination). */
  readonly cluster: string;
  /** The raw Application object as read from the cluster. */
  readonly application: unknown;
  /** Absent: the manifests were not read (repository not listed, Git failed). */
  readonly manifests?: AppManifests;
  /** Live HPAs/ScaledObjects from the destination cluster; absent when the fleet does not have it. */
  readonly liveObjects?: readonly unknown[];
  /** The app's recorded sync-status history; absent when it could not be read. */
  readonly history?: readonly SyncHistoryEntry[];
  /** The commit its target revision points at now (single-source apps). */
  readonly currentRevision?: string;
  /** Multi-source apps: the current commit of each source, in `spec.sources` order. */
  readonly currentRevisions?: readonly (string | undefined)[];
  /** The raw AppProject the app names, when it was read. */
  readonly appProject?: unknown;
  /** System-level `resource.customizations.ignoreDifferences` entries from argocd-cm, each with group/kind. */
  readonly systemIgnoreDifferences?: readonly unknown[];
  readonly now: Date;
}

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** The exact fields and values that triggered a finding. Never a secret value. */
export type Evidence = { readonly [key: string]: JsonValue };

export interface FindingDraft {
  readonly rule: string;
  readonly severity: Severity;
  readonly cluster: string;
  /** The Application's namespace (where Argo CD keeps it). */
  readonly namespace: string;
  readonly app: string;
  /** What inside the app it is about, e.g. `Deployment/shop/web`. */
  readonly subject?: string;
  readonly message: string;
  readonly evidence: Evidence;
}

export interface Finding extends FindingDraft {
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly resolvedAt?: string;
}

/**
 * Something the audit could not do for an app. `skipped`, `partial` and `rule-error` notes also keep
 * that rule's earlier findings open: what was not looked at is not fixed.
 */
export const NOTE_KINDS = ['skipped', 'partial', 'rule-error', 'ignored-objects'] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

export interface AuditNote {
  readonly kind: NoteKind;
  /** A rule id, or `*` for every rule of the app. */
  readonly rule: string;
  readonly cluster: string;
  readonly namespace: string;
  readonly app: string;
  readonly message: string;
}

export interface AuditOptions {
  /** An operation Running (or Terminating) longer than this since `startedAt` is stuck. */
  readonly operationStuckAfterMs: number;
  /** This many OutOfSync→Synced flips at one revision within the window is thrash. */
  readonly thrashFlips: number;
  readonly thrashWindowMs: number;
  /** OutOfSync at the current revision for less than this (by the history) is not drift yet. */
  readonly driftGraceMs: number;
  /** Longest list kept in a finding's evidence. */
  readonly maxEvidenceItems: number;
}

export const DEFAULT_AUDIT_OPTIONS: AuditOptions = Object.freeze({
  operationStuckAfterMs: 15 * 60_000,
  thrashFlips: 3,
  thrashWindowMs: 60 * 60_000,
  driftGraceMs: 2 * 60_000,
  maxEvidenceItems: 10,
});
