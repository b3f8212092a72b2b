import { type AuditOptions, DEFAULT_AUDIT_OPTIONS, type Severity } from '../audit/types.js';

export interface ReconcileOptions {
  /** An app behind the current commit longer than this has missed its webhook (default 120). */
  readonly graceSeconds: number;
  /** Repositories listed (`ls-refs`) at once (default 8). */
  readonly lsRefsConcurrency: number;
  /** Clusters read at once, for Applications and for live objects (default 16). */
  readonly clusterConcurrency: number;
  /**
   * Clusters whose Applications are audited at once (default 4), at most `clusterConcurrency`: each holds
   * one page of up to 500 slim Applications (~4 MB for realistic ones) while the page is audited.
   */
  readonly pageConcurrency: number;
  /** Apps audited at once; each may read manifests from Git (default 8). */
  readonly auditConcurrency: number;
  /**
   * Time for reading and auditing, from the start of the pass; apps not audited by then are skipped
   * (their findings stay as they were) and the writes still happen. Lambda: remaining time minus ~30 s.
   */
  readonly timeBudgetMs: number;
  /** An open finding seen again is rewritten (its `lastSeen`) at most this often, unless it changed (default 3600). */
  readonly lastSeenRefreshSeconds: number;
  /** Sync-status observations kept per app: this long back (the latest is always kept) … */
  readonly observationWindowMs: number;
  /** … and at most this many. */
  readonly maxObservations: number;
  /** List AppProjects on Argo CD clusters (needs `list` on appprojects.argoproj.io; default false). */
  readonly readAppProjects: boolean;
  /**
   * The digest's severity floor unless the fleet's `audit.digest.minSeverity` says; the deployment's is
   * `DIGEST_MIN_SEVERITY` (default `medium`, lib/config.ts), this default (`info`) keeps everything.
   */
  readonly digestMinSeverity: Severity;
  readonly audit: AuditOptions;
}

export const DEFAULT_RECONCILE_OPTIONS: ReconcileOptions = Object.freeze({
  graceSeconds: 120,
  lsRefsConcurrency: 8,
  clusterConcurrency: 16,
  pageConcurrency: 4,
  auditConcurrency: 8,
  timeBudgetMs: 240_000,
  lastSeenRefreshSeconds: 3600,
  observationWindowMs: Math.max(DEFAULT_AUDIT_OPTIONS.thrashWindowMs, DEFAULT_AUDIT_OPTIONS.driftGraceMs),
  maxObservations: 24,
  readAppProjects: false,
  digestMinSeverity: 'info',
  audit: DEFAULT_AUDIT_OPTIONS,
});

export type ReconcileSettings = Partial<Omit<ReconcileOptions, 'audit'>> & {
  readonly audit?: Partial<AuditOptions>;
};

export function resolveOptions(settings: ReconcileSettings = {}): ReconcileOptions {
  const audit = { ...DEFAULT_AUDIT_OPTIONS, ...settings.audit };
  const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  return {
    ...DEFAULT_RECONCILE_OPTIONS,
    observationWindowMs: Math.max(audit.thrashWindowMs, audit.driftGraceMs),
    ...defined,
    audit,
  };
}
