/** Annotations that script how the simulated controllers treat one object. */
export const SIM_ANNOTATIONS = {
  /** What an automated sync of this Application does (see `SYNC_OUTCOMES`). */
  outcome: 'sim.gitops-sync.dev/outcome',
  /** How long the sync operation runs, in ms (default: the controller's `syncMs`). */
  syncMs: 'sim.gitops-sync.dev/sync-ms',
  /** How long health stays Progressing after a successful sync, in ms (default: `healthMs`). */
  healthMs: 'sim.gitops-sync.dev/health-ms',
  /** How many failed attempts come before the last one for the `retry-then-*` outcomes (default 1). */
  retries: 'sim.gitops-sync.dev/retries',
  /** "true": the controller never handles this object's refresh requests (a stuck controller). */
  ignoreRefresh: 'sim.gitops-sync.dev/ignore-refresh',
} as const;

export const SYNC_OUTCOMES = [
  'succeed',
  'fail',
  'error',
  'degrade',
  'missing',
  'hang',
  'retry-then-succeed',
  'retry-then-fail',
  'unchanged',
] as const;
export type SyncOutcome = (typeof SYNC_OUTCOMES)[number];

export const ARGO_ANNOTATIONS = {
  refresh: 'argocd.argoproj.io/refresh',
  refreshTimestamp: 'argocd.argoproj.io/refresh-timestamp',
  appSetRefresh: 'argocd.argoproj.io/application-set-refresh',
  fluxRequestedAt: 'reconcile.fluxcd.io/requestedAt',
} as const;

export function outcomeOf(annotations: Record<string, string> | undefined): SyncOutcome {
  const value = annotations?.[SIM_ANNOTATIONS.outcome];
  return (SYNC_OUTCOMES as readonly string[]).includes(value ?? '') ? (value as SyncOutcome) : 'succeed';
}

export function numberAnnotation(
  annotations: Record<string, string> | undefined,
  key: string,
  fallback: number,
): number {
  const value = Number(annotations?.[key]);
  return annotations?.[key] !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** Kubernetes timestamps have second precision. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
