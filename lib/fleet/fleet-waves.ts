import { isScalar, isSeq, type Node } from 'yaml';
import { isClusterGlob } from './cluster-glob.js';
import { parseDuration } from './duration.js';
import { dnsLabel } from './fleet-checks.js';
import type { MaxUnhealthy, WaveConfig } from './fleet-config.js';
import { labelMap } from './labels.js';
import { closest } from './near-miss.js';
import { entryMatches, selectorMatches, type WaveCluster } from './wave-selection.js';
import type { Fields, YamlReader } from './yaml-reader.js';

const WAVE_KEYS = ['name', 'clusters', 'selector', 'soak', 'maxUnhealthy'] as const;
const CLUSTER_ENTRY = /^[a-z0-9*?-]{1,63}$/;
const MAX_SOAK_MS = 24 * 3600 * 1000;
const MAX_COUNT = 100_000;

/** One parsed wave with the nodes its selection problems are reported at. */
interface ParsedWave {
  readonly wave: WaveConfig;
  readonly path: string;
  readonly self: Node | null;
  readonly fields: Fields;
  /** The `clusters` entries that read well, with their nodes. */
  readonly entries: readonly { readonly value: string; readonly node: Node | null; readonly index: number }[];
}

/** Top-level `waves:` (README "Fleet file"), checked against the fleet's clusters; undefined when absent. */
export function wavesOf(
  reader: YamlReader,
  root: Fields,
  clusters: readonly WaveCluster[],
): readonly WaveConfig[] | undefined {
  if (!root.has('waves')) return undefined;
  const nodes = reader.sequence(root.node('waves'), root.pathOf('waves'));
  if (nodes.length === 0 && !root.broken)
    root.fail('waves', 'must list at least one wave (or leave waves out)');
  const parsed = nodes.map((node, i) => wave(reader, node, `waves[${i}]`));
  uniqueNames(reader, parsed);
  checkSelections(
    reader,
    parsed,
    clusters.filter((c) => c.name !== ''),
  );
  return Object.freeze(parsed.map((p) => p.wave));
}

function wave(reader: YamlReader, node: Node | null, path: string): ParsedWave {
  const fields = reader.fields(node, path, WAVE_KEYS);
  const name = fields.requiredString('name', dnsLabel);
  if (fields.has('clusters') && fields.has('selector'))
    fields.fail('selector', 'and clusters are exclusive; set one');
  const entries = fields.has('clusters') ? clusterEntries(reader, fields) : [];
  const selector =
    !fields.has('clusters') && fields.has('selector') ? waveSelector(reader, fields) : undefined;
  const config: WaveConfig = {
    name,
    ...(fields.has('clusters') ? { clusters: entries.map((e) => e.value) } : {}),
    ...(selector === undefined ? {} : { selector }),
    soakMs: soak(fields),
    maxUnhealthy: maxUnhealthy(fields),
  };
  return { wave: config, path, self: node, fields, entries };
}

function clusterEntries(reader: YamlReader, fields: Fields): ParsedWave['entries'] {
  const path = fields.pathOf('clusters');
  const nodes = reader.sequence(fields.node('clusters'), path);
  if (nodes.length === 0 && isSeq(fields.node('clusters')))
    fields.fail('clusters', 'must name at least one cluster (an empty wave selects nothing)');
  return nodes.flatMap((node, index) => {
    const value = isScalar(node) ? node.value : undefined;
    if (typeof value === 'string' && CLUSTER_ENTRY.test(value)) return [{ value, node, index }];
    reader.fail(node, `${path}[${index}]`, 'must be a cluster name or a glob of one (*, ?)');
    return [];
  });
}

function waveSelector(reader: YamlReader, fields: Fields): Readonly<Record<string, string>> | undefined {
  const selector = labelMap(reader, fields.node('selector'), fields.pathOf('selector'));
  if (selector !== undefined && Object.keys(selector).length === 0)
    fields.fail(
      'selector',
      'must name at least one label (a wave without selector takes every cluster left)',
    );
  return selector;
}

function soak(fields: Fields): number {
  if (!fields.has('soak')) return 0;
  const node = fields.node('soak');
  const value = isScalar(node) ? node.value : undefined;
  const ms = value === 0 ? 0 : typeof value === 'string' ? parseDuration(value.trim()) : undefined;
  if (ms === undefined) {
    fields.fail('soak', 'must be a duration such as 30s, 5m, 1h or 1h30m');
    return 0;
  }
  if (ms > MAX_SOAK_MS) fields.fail('soak', 'must be at most 24h');
  return ms;
}

function maxUnhealthy(fields: Fields): MaxUnhealthy {
  if (!fields.has('maxUnhealthy')) return { count: 0 };
  const node = fields.node('maxUnhealthy');
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_COUNT)
    return { count: value };
  const percent = typeof value === 'string' ? /^(100|\d{1,2})%$/.exec(value.trim()) : null;
  if (percent !== null && Number(percent[1]) <= 100) return { percent: Number(percent[1]) };
  fields.fail('maxUnhealthy', 'must be a whole number of apps (0 or more) or a percentage such as "10%"');
  return { count: 0 };
}

function uniqueNames(reader: YamlReader, waves: readonly ParsedWave[]): void {
  const seen = new Map<string, string>();
  for (const { wave, path, fields } of waves) {
    if (wave.name === '') continue;
    const first = seen.get(wave.name);
    if (first !== undefined)
      reader.fail(fields.node('name'), `${path}.name`, `is used by another wave (${first})`);
    else seen.set(wave.name, path);
  }
}

/**
 * What each wave selects, in order: a literal name must be a fleet cluster not taken by an earlier wave
 * nor repeated in its wave; a glob or selector must select a cluster, and at least one no earlier wave took
 * (the first wave that selects a cluster holds it); a wave with neither must be the last.
 */
function checkSelections(
  reader: YamlReader,
  waves: readonly ParsedWave[],
  clusters: readonly WaveCluster[],
): void {
  const taken = new Map<string, number>();
  const names = clusters.map((c) => c.name);
  waves.forEach((parsed, i) => {
    const { wave, path, fields } = parsed;
    const selected: string[] = [];
    if (wave.clusters !== undefined) {
      selected.push(...entrySelections(reader, parsed, names, taken, waves));
    } else if (wave.selector !== undefined && Object.keys(wave.selector).length > 0) {
      const matched = clusters
        .filter((c) => selectorMatches(wave.selector ?? {}, c.labels))
        .map((c) => c.name);
      const problem = freshProblem(matched, taken, waves, describeSelector(wave.selector));
      if (problem !== undefined) fields.fail('selector', problem);
      selected.push(...matched);
    } else if (!fields.has('selector') && !fields.broken && i < waves.length - 1) {
      reader.fail(
        parsed.self,
        path,
        'has neither clusters nor selector (it takes every cluster left), so it must be the last wave',
      );
    }
    for (const name of selected) if (!taken.has(name)) taken.set(name, i);
  });
}

function entrySelections(
  reader: YamlReader,
  { path, entries }: ParsedWave,
  names: readonly string[],
  taken: ReadonlyMap<string, number>,
  waves: readonly ParsedWave[],
): string[] {
  const seen = new Map<string, number>();
  const selected: string[] = [];
  for (const { value, node, index } of entries) {
    const at = `${path}.clusters[${index}]`;
    const first = seen.get(value);
    seen.set(value, first ?? index);
    if (first !== undefined) {
      reader.fail(node, at, `repeats ${value} (clusters[${first}])`);
      continue;
    }
    const matched = names.filter((name) => entryMatches(value, name));
    let problem: string | undefined;
    if (!isClusterGlob(value)) {
      const hint = closest(value, names);
      const owner = taken.get(value);
      if (matched.length === 0)
        problem = `names no cluster of this fleet${hint === undefined ? '' : ` (did you mean "${hint}"?)`}`;
      else if (owner !== undefined) problem = `${value} is already in ${waveLabel(waves, owner)}`;
    } else {
      problem = freshProblem(matched, taken, waves, `glob ${value}`);
    }
    if (problem !== undefined) reader.fail(node, at, problem);
    selected.push(...matched);
  }
  return selected;
}

/** The problem of a glob or selector that selects no cluster, or only clusters earlier waves hold. */
function freshProblem(
  matched: readonly string[],
  taken: ReadonlyMap<string, number>,
  waves: readonly ParsedWave[],
  what: string,
): string | undefined {
  if (matched.length === 0) return `${what} selects no cluster of this fleet`;
  if (matched.some((name) => !taken.has(name))) return undefined;
  const held = matched.map((name) => `${name} in ${waveLabel(waves, taken.get(name) ?? 0)}`);
  return `${what} selects only clusters of earlier waves (${list(held)})`;
}

function waveLabel(waves: readonly ParsedWave[], index: number): string {
  const wave = waves[index];
  return `wave ${wave?.wave.name || '?'} (${wave?.path ?? `waves[${index}]`})`;
}

function describeSelector(selector: Readonly<Record<string, string>> | undefined): string {
  return `selector ${Object.entries(selector ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(', ')}`;
}

function list(items: readonly string[], max = 3): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
