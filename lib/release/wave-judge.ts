import type { StateCounts } from '../rollouts/state-model.js';
import type { PlannedWave } from '../rollouts/waves.js';

/** A wave as the fleet file defines it, resolved to destination clusters. */
export type ReleaseWave = Pick<PlannedWave, 'name' | 'clusters' | 'soakMs' | 'maxUnhealthy'>;

export type WaveJudgement =
  | { readonly kind: 'wait' }
  | { readonly kind: 'soak'; readonly until: Date }
  | { readonly kind: 'next' }
  | { readonly kind: 'halt'; readonly reason: string };

// `out-of-sync`: Argo CD will not sync it without a person (no automated policy): the wave cannot pass it by.
const UNHEALTHY = ['failed', 'degraded', 'blocked', 'timeout', 'error', 'out-of-sync'] as const;
/** Ended well for a wave's gate: at the commit (or a later one of its ref), or carried on by a later push. */
const DONE = ['synced', 'superseded', 'aborted'] as const;

/**
 * A wave's gate from its apps' counts: too many unhealthy apps halt it; every other app synced (healthy at
 * the commit or a later one of its ref) opens the next wave once the soak since the last end has passed;
 * anything still moving (or held) waits. A wave no app of the push landed in passes at once.
 */
export function judgeWave(
  wave: ReleaseWave,
  view: { readonly c: StateCounts; readonly f?: string | undefined } | undefined,
  now: Date,
  options: { readonly skipFailed?: boolean } = {},
): WaveJudgement {
  const counts = view?.c ?? {};
  const total = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
  if (total === 0) return { kind: 'next' };
  const unhealthy = UNHEALTHY.reduce((sum, s) => sum + (counts[s] ?? 0), 0);
  const done = DONE.reduce((sum, s) => sum + (counts[s] ?? 0), 0);
  const allowed =
    'count' in wave.maxUnhealthy
      ? wave.maxUnhealthy.count
      : Math.floor((wave.maxUnhealthy.percent / 100) * total);
  if (unhealthy > allowed && options.skipFailed !== true) {
    const parts = UNHEALTHY.filter((s) => (counts[s] ?? 0) > 0).map((s) => `${counts[s]} ${s}`);
    return {
      kind: 'halt',
      reason: `${parts.join(', ')} of ${total} apps (at most ${allowed} tolerated)`,
    };
  }
  if (done + unhealthy < total) return { kind: 'wait' };
  const { soakMs } = wave;
  const last = Date.parse(view?.f ?? '');
  if (soakMs > 0 && !Number.isNaN(last) && now.getTime() < last + soakMs) {
    return { kind: 'soak', until: new Date(last + soakMs) };
  }
  return { kind: 'next' };
}
