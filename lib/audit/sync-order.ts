import type { K8sObject } from './k8s-object.js';

export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
export const HOOK_ANNOTATION = 'argocd.argoproj.io/hook';

const PHASE_RANK: Readonly<Record<string, number>> = { PreSync: -1, Sync: 0, PostSync: 1, SyncFail: 2 };
const HELM_HOOK_PHASE: Readonly<Record<string, string>> = {
  'pre-install': 'PreSync',
  'pre-upgrade': 'PreSync',
  'post-install': 'PostSync',
  'post-upgrade': 'PostSync',
};

/** Where an object runs in a sync: phase first, then wave (gitops-engine `syncTasks.Less`). */
export interface SyncPosition {
  readonly phase: string;
  readonly phaseRank: number;
  readonly wave: number;
}

/** Go `strconv.Atoi`: an optional sign and decimal digits, nothing else. */
function atoi(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The sync-wave annotation, else Helm's hook-weight, else 0; an unparsable value falls through. */
export function syncWave(object: Pick<K8sObject, 'annotations'>): number {
  return (
    atoi(object.annotations[SYNC_WAVE_ANNOTATION]) ?? atoi(object.annotations['helm.sh/hook-weight']) ?? 0
  );
}

/**
 * The earliest phase an object runs in; undefined for a `Skip` hook, which is never applied. Helm hook
 * annotations count only when there is no Argo CD hook annotation.
 */
export function syncPosition(object: Pick<K8sObject, 'annotations'>): SyncPosition | undefined {
  const argoHooks = split(object.annotations[HOOK_ANNOTATION]);
  const phases =
    argoHooks.length > 0
      ? argoHooks
      : split(object.annotations['helm.sh/hook']).flatMap((h) => HELM_HOOK_PHASE[h] ?? []);
  const ranked = phases.filter((p) => PHASE_RANK[p] !== undefined);
  if (argoHooks.length > 0 && ranked.length === 0) return undefined;
  const phase =
    ranked.length === 0
      ? 'Sync'
      : ranked.reduce((a, b) => ((PHASE_RANK[a] ?? 0) <= (PHASE_RANK[b] ?? 0) ? a : b));
  return { phase, phaseRank: PHASE_RANK[phase] ?? 0, wave: syncWave(object) };
}

export function runsBefore(a: SyncPosition, b: SyncPosition): boolean {
  return a.phaseRank < b.phaseRank || (a.phaseRank === b.phaseRank && a.wave < b.wave);
}

function split(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
