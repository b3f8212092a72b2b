import { isClusterGlob, matchesClusterGlob } from './cluster-glob.js';
import type { ClusterConfig, WaveConfig } from './fleet-config.js';

export type WaveCluster = Pick<ClusterConfig, 'name' | 'labels'>;

/** Whether a wave names `cluster`: one of its `clusters` entries (name or glob), or every `selector` label. */
export function waveSelects(wave: Pick<WaveConfig, 'clusters' | 'selector'>, cluster: WaveCluster): boolean {
  if (wave.clusters !== undefined) return wave.clusters.some((entry) => entryMatches(entry, cluster.name));
  if (wave.selector !== undefined) return selectorMatches(wave.selector, cluster.labels);
  return true;
}

/** A wave with neither `clusters` nor `selector`: every destination no earlier wave took. */
export function isCatchAllWave(wave: Pick<WaveConfig, 'clusters' | 'selector'>): boolean {
  return wave.clusters === undefined && wave.selector === undefined;
}

export function entryMatches(entry: string, name: string): boolean {
  return isClusterGlob(entry) ? matchesClusterGlob(entry, name) : entry === name;
}

export function selectorMatches(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}
