import type { MaxUnhealthy, WaveConfig } from '../fleet/fleet-config.js';
import { type WaveCluster, waveSelects } from '../fleet/wave-selection.js';
import type { TargetKind } from './app-model.js';

/** One wave of a rollout, with the fleet clusters it holds. */
export interface PlannedWave {
  /** Position in the fleet file's `waves:` (0: the wave a push refreshes). */
  readonly index: number;
  readonly name: string;
  /** Fleet clusters in this wave; the last wave also holds every cluster no wave names. */
  readonly clusters: readonly string[];
  readonly soakMs: number;
  readonly maxUnhealthy: MaxUnhealthy;
}

/** Which wave each destination cluster belongs to. */
export interface WavePlan {
  /** In order; never empty. */
  readonly waves: readonly PlannedWave[];
  /** Fleet cluster name → index in `waves`. */
  readonly byCluster: ReadonlyMap<string, number>;
}

/**
 * Each fleet cluster in the first wave that selects it (by name, glob or labels), else in the last wave.
 * Undefined without waves: one wave, the whole fleet, nothing gated (the behaviour without `waves:`).
 */
export function planWaves(
  waves: readonly WaveConfig[] | undefined,
  clusters: readonly WaveCluster[],
): WavePlan | undefined {
  if (waves === undefined || waves.length === 0) return undefined;
  const last = waves.length - 1;
  const members: string[][] = waves.map(() => []);
  const byCluster = new Map<string, number>();
  for (const cluster of clusters) {
    const found = waves.findIndex((wave) => waveSelects(wave, cluster));
    const index = found === -1 ? last : found;
    byCluster.set(cluster.name, index);
    members[index]?.push(cluster.name);
  }
  const planned = waves.map((wave, index) =>
    Object.freeze({
      index,
      name: wave.name,
      clusters: Object.freeze(members[index] ?? []),
      soakMs: wave.soakMs,
      maxUnhealthy: wave.maxUnhealthy,
    }),
  );
  return Object.freeze({ waves: Object.freeze(planned), byCluster });
}

/** The wave of an app deploying to `destination`; an unknown or absent destination is in the last wave. */
export function waveOf(plan: WavePlan, destination: string | undefined): PlannedWave;
export function waveOf(plan: WavePlan | undefined, destination: string | undefined): PlannedWave | undefined;
export function waveOf(plan: WavePlan | undefined, destination: string | undefined): PlannedWave | undefined {
  if (plan === undefined) return undefined;
  const index = destination === undefined ? undefined : plan.byCluster.get(destination);
  const wave = plan.waves[index ?? plan.waves.length - 1];
  if (wave === undefined) throw new Error('a wave plan has at least one wave');
  return wave;
}

/** A matched object's wave: an Application by its destination, an ApplicationSet or GitRepository by the cluster it lives on. */
export function waveOfTarget(
  plan: WavePlan,
  target: { readonly kind: TargetKind; readonly cluster: string; readonly destination?: string | undefined },
): PlannedWave {
  return waveOf(plan, target.kind === 'Application' ? target.destination : target.cluster);
}

/** The wave after `wave`, or undefined after the last. */
export function nextWave(plan: WavePlan, wave: Pick<PlannedWave, 'index'>): PlannedWave | undefined {
  return plan.waves[wave.index + 1];
}

/** The `held` message of an app of a wave not yet open: "wave prod-eu waits for canary". */
export function waitsForMessage(waiting: Pick<PlannedWave, 'name'>, open: Pick<PlannedWave, 'name'>): string {
  return `wave ${waiting.name} waits for ${open.name}`;
}
