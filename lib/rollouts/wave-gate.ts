import type { MaxUnhealthy } from '../fleet/fleet-config.js';
import type { AppState } from './model.js';
import type { PlannedWave } from './waves.js';

/** SPEC's app states (`held` and `aborted` included, whether or not the model lists them yet). */
export type WaveAppState = AppState | 'held' | 'aborted';

/** States that count against a wave's `maxUnhealthy`. */
export const UNHEALTHY_STATES: ReadonlySet<WaveAppState> = new Set([
  'failed',
  'degraded',
  'blocked',
  'timeout',
  'error',
]);

export interface WaveGateApp {
  /** How the halt reason names it, e.g. `hub-eu/argocd/web`. */
  readonly name: string;
  readonly state: WaveAppState;
  /** When it ended (ISO 8601): a synced app's time counts towards the soak when `lastSyncedAt` is absent. */
  readonly finishedAt?: string | undefined;
}

export interface WaveGateInput {
  readonly wave: Pick<PlannedWave, 'name' | 'soakMs' | 'maxUnhealthy'>;
  /** Every app of this rollout in the wave (none: the wave opens the next at once). */
  readonly apps: readonly WaveGateApp[];
  /** When the wave's last app became synced and healthy (ISO 8601); default: the latest synced `finishedAt`. */
  readonly lastSyncedAt?: string | undefined;
  readonly now: Date;
  /**
   * Resumed with `skipFailed`: the wave's unhealthy apps count as done and never halt it. Pass it on every
   * evaluation after such a resume (the wave opens the next once the others are done and soaked).
   */
  readonly skipFailed?: boolean | undefined;
}

export type WaveGate =
  /** Apps of the wave are still on their way (`waiting`: the first few, `pending`: how many). */
  | { readonly kind: 'wait'; readonly pending: number; readonly waiting: readonly string[] }
  /** Every app is done; the next wave opens at `until` (ISO 8601). */
  | { readonly kind: 'soak'; readonly until: string }
  | { readonly kind: 'open-next' }
  /** More apps unhealthy than the wave tolerates: halt the rollout. */
  | { readonly kind: 'halt'; readonly reason: string; readonly unhealthy: readonly string[] };

const SHOWN = 3;

/** How many unhealthy apps a wave of `total` apps tolerates: the count, or the percentage rounded down. */
export function toleratedUnhealthy(max: MaxUnhealthy, total: number): number {
  return 'count' in max ? max.count : Math.floor((total * max.percent) / 100);
}

/**
 * Whether the open wave lets the next one open. Unhealthy apps (failed, degraded, blocked, timeout, error)
 * beyond the tolerance halt it at once, even while others still run; tolerated ones, `synced` and
 * `superseded` apps are done; once every app is done the soak runs from the last sync, then the next opens.
 */
export function evaluateWaveGate(input: WaveGateInput): WaveGate {
  const { wave, apps, now } = input;
  const unhealthy = apps.filter((app) => UNHEALTHY_STATES.has(app.state));
  const tolerated = toleratedUnhealthy(wave.maxUnhealthy, apps.length);
  if (input.skipFailed !== true && unhealthy.length > tolerated) {
    return {
      kind: 'halt',
      reason: haltReason(input, unhealthy, tolerated),
      unhealthy: unhealthy.map((a) => a.name),
    };
  }
  const pending = apps.filter((app) => !isDone(app.state));
  if (pending.length > 0) {
    return { kind: 'wait', pending: pending.length, waiting: pending.slice(0, SHOWN).map((a) => a.name) };
  }
  const synced = apps.filter((app) => app.state === 'synced');
  if (wave.soakMs <= 0 || synced.length === 0) return { kind: 'open-next' };
  const since = soakStart(input.lastSyncedAt, synced, now);
  const until = since + wave.soakMs;
  return now.getTime() >= until
    ? { kind: 'open-next' }
    : { kind: 'soak', until: new Date(until).toISOString() };
}

function isDone(state: WaveAppState): boolean {
  return state === 'synced' || state === 'superseded' || UNHEALTHY_STATES.has(state);
}

/** The soak's start: `lastSyncedAt`, else the latest synced `finishedAt`, else now (never opening early). */
function soakStart(lastSyncedAt: string | undefined, synced: readonly WaveGateApp[], now: Date): number {
  const given = lastSyncedAt === undefined ? Number.NaN : Date.parse(lastSyncedAt);
  if (!Number.isNaN(given)) return given;
  const times = synced.map((app) => (app.finishedAt === undefined ? Number.NaN : Date.parse(app.finishedAt)));
  if (times.length > 0 && times.every((t) => !Number.isNaN(t))) return Math.max(...times);
  return now.getTime();
}

function haltReason(input: WaveGateInput, unhealthy: readonly WaveGateApp[], tolerated: number): string {
  const { wave, apps } = input;
  const byState = new Map<string, number>();
  for (const app of unhealthy) byState.set(app.state, (byState.get(app.state) ?? 0) + 1);
  const states = [...byState].map(([state, n]) => `${n} ${state}`).join(', ');
  const limit =
    'count' in wave.maxUnhealthy ? `${tolerated}` : `${tolerated} (${wave.maxUnhealthy.percent}%)`;
  const names = unhealthy.slice(0, SHOWN).map((a) => a.name);
  const more = unhealthy.length > SHOWN ? ` and ${unhealthy.length - SHOWN} more` : '';
  return `wave ${wave.name}: ${unhealthy.length} of ${apps.length} apps unhealthy (${states}), more than maxUnhealthy ${limit}: ${names.join(', ')}${more}`;
}
