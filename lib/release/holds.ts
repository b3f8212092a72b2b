import type { Freeze, WaveProgress } from '../rollouts/rollout-model.js';
import { clusterGlobMatches } from './cluster-glob.js';
import type { ControlState } from './ports.js';

/** What release control says about one matched app of one rollout, before it is refreshed. */
export type HoldVerdict =
  | { readonly kind: 'go' }
  /** Recorded `held` with `reason` as its message: not refreshed until the hold lifts. */
  | { readonly kind: 'held'; readonly reason: string }
  /** Never refreshed by this rollout: it was aborted, or a later commit's rollout took its wave over. */
  | { readonly kind: 'end'; readonly state: 'aborted' | 'superseded'; readonly reason: string };

export interface HeldApp {
  /** Canonical key of the rollout's repository. */
  readonly repoKey: string | undefined;
  /** The cluster the Application lives on (its Argo CD's). */
  readonly cluster: string;
  /** The fleet cluster it deploys to, when known. */
  readonly destination?: string | undefined;
  readonly wave?: string | undefined;
  /** The live Application (its project and destination: what sync windows select). */
  readonly raw?: unknown;
}

export interface HoldContext {
  readonly control: ControlState | undefined;
  readonly freezes: readonly Freeze[];
  /** An AppProject sync window that keeps the app from syncing now, if any. */
  readonly syncWindow?: ((app: HeldApp) => string | undefined) | undefined;
}

/**
 * The order is what an operator expects: an abort or a supersession ends the app; a freeze, a pause, a
 * wave not yet open or a sync window holds it (the first that applies is the reason shown); else it goes.
 */
export function holdFor(app: HeldApp, context: HoldContext): HoldVerdict {
  const { control } = context;
  if (control?.aborted === true) return { kind: 'end', state: 'aborted', reason: 'the rollout was aborted' };
  const waves = control?.waves ?? [];
  const index = app.wave === undefined ? -1 : waves.findIndex((w) => w.name === app.wave);
  const wave = index >= 0 ? waves[index] : undefined;
  if (wave?.state === 'superseded') {
    return { kind: 'end', state: 'superseded', reason: wave.reason ?? 'a later commit of its ref took over' };
  }
  if (wave?.state === 'aborted') return { kind: 'end', state: 'aborted', reason: 'the rollout was aborted' };
  const freeze = context.freezes.find((f) => freezeCovers(f, app));
  if (freeze !== undefined) return { kind: 'held', reason: freezeReason(freeze) };
  if (control?.paused === true) return { kind: 'held', reason: 'the rollout is paused' };
  if (wave !== undefined && (wave.state === 'waiting' || wave.state === 'halted')) {
    return { kind: 'held', reason: waitingReason(waves, index) };
  }
  const window = context.syncWindow?.(app);
  if (window !== undefined) return { kind: 'held', reason: window };
  return { kind: 'go' };
}

/**
 * The wave of `destination` in the rollout's own waves (written when its push was planned), not the fleet's
 * present `waves:`: a rollout planned before the waves changed keeps the waves it was planned with (else its
 * held apps lose their wave, and a superseded or waiting wave no longer holds them). A cluster no wave names
 * is in the last; a rollout planned without waves has none.
 */
export function rolloutWaveOf(
  waves: readonly WaveProgress[] | undefined,
  destination: string,
): string | undefined {
  if (waves === undefined || waves.length === 0) return undefined;
  return (waves.find((w) => w.clusters.includes(destination)) ?? waves.at(-1))?.name;
}

export function freezeCovers(freeze: Freeze, app: HeldApp): boolean {
  if (freeze.repo !== undefined && freeze.repo !== app.repoKey) return false;
  if (freeze.cluster === undefined) return true;
  const pattern = freeze.cluster;
  return (
    clusterGlobMatches(pattern, app.cluster) ||
    (app.destination !== undefined && clusterGlobMatches(pattern, app.destination))
  );
}

function freezeReason(freeze: Freeze): string {
  const until = freeze.until === undefined ? '' : ` until ${freeze.until}`;
  return `frozen${until}: ${freeze.reason} (by ${freeze.by}, freeze ${freeze.id})`;
}

function waitingReason(waves: readonly WaveProgress[], index: number): string {
  const wave = waves[index] as WaveProgress;
  const halted = waves.find((w) => w.state === 'halted');
  if (halted !== undefined) {
    return `wave ${wave.name} waits: the rollout halted at wave ${halted.name}${halted.reason === undefined ? '' : ` (${halted.reason})`}`;
  }
  const before = waves.slice(0, index).filter((w) => w.state !== 'done');
  const waitsFor = before.at(-1) ?? waves[index - 1];
  return waitsFor === undefined
    ? `wave ${wave.name} is not open yet`
    : `wave ${wave.name} waits for ${waitsFor.name}`;
}
