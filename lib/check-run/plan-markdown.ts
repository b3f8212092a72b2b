import type { AppRecord } from '../rollouts/app-model.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import { APP_STATES, type AppState } from '../rollouts/state-model.js';

/** GitHub refuses an `output.summary` or `output.text` longer than this (65,535 characters). */
export const MAX_OUTPUT_CHARS = 65_535;
const MAX_REASON_CHARS = 500;

/** Text safe in a table cell or a list item: one line, no pipes or HTML, bounded. */
export function cell(value: string, max = 200): string {
  const line = value
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\|`*_<>[\]]/g, (c) => `\\${c}`);
  const points = [...line];
  return points.length <= max ? line : `${points.slice(0, max - 1).join('')}…`;
}

/** One row of the clusters × states table: the cluster's wave (with `waves:`) and its apps per state. */
export interface ClusterRow {
  wave?: string;
  readonly counts: Map<AppState, number>;
}

/**
 * The clusters × states table, the states that occur as columns, then (with `waves:`) the waves and what
 * halted them. Cut before GitHub's limit, with a note pointing at the rollout page.
 */
export function summaryTable(rollout: Rollout): string {
  const byCluster = new Map<string, ClusterRow>();
  for (const app of rollout.apps) addTo(byCluster, app.destination ?? app.cluster, app.state, 1, app.wave);
  for (const cluster of Object.keys(rollout.clusterErrors ?? {})) addTo(byCluster, cluster, 'error', 1);
  return clustersTable(rollout, byCluster);
}

/** Counts `n` apps in `state` on the cluster's row. */
export function addTo(
  rows: Map<string, ClusterRow>,
  cluster: string,
  state: AppState,
  n: number,
  wave?: string,
): void {
  const row = rows.get(cluster) ?? { counts: new Map<AppState, number>() };
  if (wave !== undefined) row.wave = wave;
  row.counts.set(state, (row.counts.get(state) ?? 0) + n);
  rows.set(cluster, row);
}

/** The table of `rows` (and the waves of `rollout`), bounded. */
export function clustersTable(
  rollout: Omit<Rollout, 'apps'>,
  byCluster: ReadonlyMap<string, ClusterRow>,
): string {
  const present = APP_STATES.filter((s) => [...byCluster.values()].some((r) => (r.counts.get(s) ?? 0) > 0));
  const waves = rollout.waves ?? [];
  const withWave = waves.length > 0;
  const head = ['Cluster', ...(withWave ? ['Wave'] : []), ...present, 'total'];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i < (withWave ? 2 : 1) ? ' --- ' : ' ---: ')).join('|')}|`,
  ];
  const rows = [...byCluster].sort(([a], [b]) => a.localeCompare(b));
  for (const [cluster, row] of rows) {
    const count = (s: AppState) => row.counts.get(s) ?? 0;
    const total = [...row.counts.values()].reduce((sum, n) => sum + n, 0);
    const wave = withWave ? [cell(row.wave ?? waveOf(rollout, cluster) ?? '—', 63)] : [];
    lines.push(
      `| ${[cell(cluster, 63), ...wave, ...present.map((s) => String(count(s))), String(total)].join(' | ')} |`,
    );
  }
  const parts = [lines.join('\n')];
  if (withWave) {
    const waveLines = ['| Wave | State | Clusters | Note |', '| --- | --- | --- | --- |'];
    for (const wave of waves) {
      waveLines.push(
        `| ${cell(wave.name, 63)} | ${wave.state} | ${cell(wave.clusters.join(', '), 300)} | ${cell(wave.reason ?? '', MAX_REASON_CHARS)} |`,
      );
    }
    parts.push(waveLines.join('\n'));
  }
  return bounded(parts.join('\n\n'), 'clusters');
}

/** Each app that did not sync (and each cluster that could not be read), with its reason. */
export function notSyncedText(rollout: Rollout): string {
  const apps = rollout.apps
    .filter((a) => a.state !== 'synced' && a.state !== 'superseded')
    .sort((a, b) => key(a).localeCompare(key(b)));
  const lines = [...clusterErrorLines(rollout), ...apps.map(appLine)];
  if (lines.length === 0) return 'Every app is synced.';
  return bounded(`Apps not synced (${lines.length}):\n\n${lines.join('\n')}`, 'apps');
}

/** A line for each cluster that could not be read, with why. */
export function clusterErrorLines(rollout: Pick<Rollout, 'clusterErrors'>): string[] {
  return Object.entries(rollout.clusterErrors ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([cluster, why]) => `- **${cell(cluster, 63)}**: cluster not read — ${cell(why, MAX_REASON_CHARS)}`);
}

/** A list item for one app: where, its state and why. */
export function appLine(app: AppRecord): string {
  const reason = reasonOf(app);
  const where = `**${cell(app.destination ?? app.cluster, 63)}** ${cell(`${app.namespace}/${app.name}`, 200)}`;
  return `- ${where}: ${app.state}${reason === undefined ? '' : ` — ${cell(reason, MAX_REASON_CHARS)}`}`;
}

function key(app: AppRecord): string {
  return `${app.destination ?? app.cluster}/${app.namespace}/${app.name}`;
}

function waveOf(rollout: Pick<Rollout, 'waves'>, cluster: string): string | undefined {
  return rollout.waves?.find((w) => w.clusters.includes(cluster))?.name;
}

/** Why an app is where it is: its failed resources, its preflight, Argo CD's message, its sync and health. */
function reasonOf(app: AppRecord): string | undefined {
  const failure = app.failures?.[0];
  if (failure !== undefined) {
    const more = (app.failures?.length ?? 0) > 1 ? ` (+${(app.failures?.length ?? 0) - 1} more)` : '';
    return `${failure.kind} ${failure.name}: ${failure.message}${more}`;
  }
  const reasons = app.preflight?.reasons ?? [];
  if (app.state === 'blocked' && reasons.length > 0) return reasons.slice(0, 3).join('; ');
  if (app.message !== undefined && app.message.trim() !== '') return app.message;
  const status = [app.syncStatus, app.health].filter((p) => p !== undefined && p !== '').join('/');
  return status === '' ? undefined : status;
}

/** Cut whole lines before GitHub's limit (counted in UTF-8 bytes, which never undercounts), noting how many went. */
export function bounded(markdown: string, what: string): string {
  if (Buffer.byteLength(markdown) <= MAX_OUTPUT_CHARS) return markdown;
  const lines = markdown.split('\n');
  const room = MAX_OUTPUT_CHARS - 200;
  let size = 0;
  let kept = 0;
  for (const line of lines) {
    const next = size + Buffer.byteLength(line) + 1;
    if (next > room) break;
    size = next;
    kept += 1;
  }
  const cut = lines.length - kept;
  return `${lines.slice(0, kept).join('\n')}\n\n_… ${cut} more lines of ${what} not shown (GitHub keeps 65,535 characters): see the rollout page._`;
}
