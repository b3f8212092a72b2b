export const SECRET_OUTCOMES = [
  'ok',
  'missing-secret',
  'missing-property',
  'not-json',
  'access-denied',
  'unsupported',
  'unchecked',
  'error',
  'not-rendered',
  'unparseable',
] as const;
export type SecretOutcome = (typeof SECRET_OUTCOMES)[number];

/**
 * Why ESO reports `SecretSynced` although the target Secret lacks a usable value: a missing secret it
 * skips (`deletionPolicy: Delete/Merge`, a `find` matching nothing), or a value that is JSON `null` or empty.
 */
export const ESO_GAPS = ['skipped-missing', 'empty-value'] as const;
export type EsoGap = (typeof ESO_GAPS)[number];

/** The outcome of one ExternalSecret reference. Never carries a secret value. */
export interface SecretCheck {
  /** `namespace/name` of the ExternalSecret. */
  readonly externalSecret: string;
  /** `spec.data[0]`, `spec.dataFrom[1].extract`, … */
  readonly field: string;
  readonly key?: string;
  readonly property?: string;
  readonly version?: string;
  readonly store?: string;
  readonly outcome: SecretOutcome;
  readonly message?: string;
  /** Post-sync: the ExternalSecret's Ready condition reason (`SecretSynced`, `SecretSyncedError`). */
  readonly syncReason?: string;
  /** Preflight: this check held the app back (set on every check of a preflight result). */
  readonly blocking?: boolean;
  readonly esoGap?: EsoGap;
  /** Preflight: where the ExternalSecret's manifest came from (Argo CD's rendering, or the files in Git). */
  readonly renderedBy?: 'argocd' | 'git';
  /** `unparseable`: the manifest file (repo-relative) and the position the parser gave, 1-based. */
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}
