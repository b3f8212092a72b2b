import { globMatch } from '../audit/ignore-differences.js';
import type { ParsedSyncWindows, SyncWindow, SyncWindowSelectors } from './sync-window-parse.js';
import { offsetChangeAfter, wallToInstant, zoneOffsetMs } from './zone-clock.js';

/**
 * AppProject sync windows evaluated as Argo CD's `SyncWindows.Matches(app).CanSync(isManual)` does:
 * a schedule is read on the zone's wall clock at the zone's offset now (Argo CD shifts the UTC time by
 * the offset of `time.Now()`), and a window fired at `s` is open over `[s, s + duration)`.
 */
export interface SyncWindowApp {
  readonly name: string;
  /** The destination namespace (`spec.destination.namespace`). */
  readonly namespace: string;
  /** `spec.destination.server`. */
  readonly server?: string;
  /** `spec.destination.name`. */
  readonly clusterName?: string;
  /** A manual sync: windows with `manualSync` let it through. The orchestrator's refreshes are automated. */
  readonly manualSync?: boolean;
}

export type SyncWindowHold =
  | { readonly held: false }
  | {
      readonly held: true;
      /** e.g. `sync window deny 0 22 * * * (1h, Europe/Berlin) is active until 22:00Z`. */
      readonly reason: string;
      /** When the windows let it sync next; absent when that cannot be known (never, or not this year). */
      readonly until?: Date;
      /** Indexes in `spec.syncWindows` of the windows that hold it. */
      readonly windows: readonly number[];
      /** Whether a manual sync would pass now (every window holding it has `manualSync`). */
      readonly manualSyncAllowed: boolean;
    };

const GLOB_META = /[*?[{]/;

/** Argo CD's globMatch: `*` matches anything, a pattern without glob syntax only itself. */
function selects(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  return GLOB_META.test(pattern) ? globMatch(pattern, value) : pattern === value;
}

/** Whether the window applies to the app: any set selector matches, or with `andOperator` every one. */
export function windowMatches(selectors: SyncWindowSelectors, app: SyncWindowApp): boolean {
  const checks: boolean[] = [];
  if (selectors.applications.length > 0) {
    checks.push(selectors.applications.some((p) => selects(p, app.name)));
  }
  if (selectors.clusters.length > 0) {
    checks.push(
      selectors.clusters.some(
        (p) =>
          (app.clusterName !== undefined && app.clusterName !== '' && selects(p, app.clusterName)) ||
          (app.server !== undefined && app.server !== '' && selects(p, app.server)),
      ),
    );
  }
  if (selectors.namespaces.length > 0) {
    checks.push(selectors.namespaces.some((p) => selects(p, app.namespace)));
  }
  if (checks.length === 0) return false;
  return selectors.andOperator ? checks.every(Boolean) : checks.some(Boolean);
}

/** The window open at `atMs`, with the instant it closes (absent: never, for a schedule that never fires). */
export interface OpenWindow {
  readonly window: SyncWindow;
  readonly endMs?: number;
}

export function openWindow(window: SyncWindow, atMs: number): OpenWindow | undefined {
  const wall = atMs + zoneOffsetMs(window.zone, atMs);
  const start = window.cron.next(wall - window.durationMs);
  if (start === undefined) return { window };
  if (start > wall) return undefined;
  return { window, endMs: wallToInstant(window.zone, start + window.durationMs) };
}

/** The next instant after `atMs` at which the window opens. */
export function nextOpening(window: SyncWindow, atMs: number): number | undefined {
  if (window.durationMs <= 0) return undefined;
  const start = window.cron.next(atMs + zoneOffsetMs(window.zone, atMs));
  return start === undefined ? undefined : wallToInstant(window.zone, start);
}

type Verdict =
  | { readonly held: false }
  | { readonly held: true; readonly cause: 'deny'; readonly denies: readonly OpenWindow[] }
  | { readonly held: true; readonly cause: 'closed'; readonly allows: readonly SyncWindow[] };

/** Argo CD's CanSync over the windows that match the app. */
function verdictAt(windows: readonly SyncWindow[], atMs: number, manual: boolean): Verdict {
  const open = windows.flatMap((w) => openWindow(w, atMs) ?? []);
  const denies = open.filter((o) => o.window.kind === 'deny');
  if (denies.length > 0) {
    return manual && denies.every((o) => o.window.manualSync)
      ? { held: false }
      : { held: true, cause: 'deny', denies };
  }
  if (open.some((o) => o.window.kind === 'allow')) return { held: false };
  const allows = windows.filter((w) => w.kind === 'allow');
  if (allows.length === 0 || (manual && allows.every((w) => w.manualSync))) return { held: false };
  return { held: true, cause: 'closed', allows };
}

const MAX_STEPS = 64;
const HORIZON_MS = 400 * 24 * 3_600_000;

function latestEnd(denies: readonly OpenWindow[]): number | undefined {
  let latest = Number.NEGATIVE_INFINITY;
  for (const { endMs } of denies) {
    if (endMs === undefined) return undefined;
    latest = Math.max(latest, endMs);
  }
  return latest;
}

function earliestOpening(
  allows: readonly SyncWindow[],
  atMs: number,
): { window: SyncWindow; atMs: number } | undefined {
  let best: { window: SyncWindow; atMs: number } | undefined;
  for (const window of allows) {
    const at = nextOpening(window, atMs);
    if (at !== undefined && (best === undefined || at < best.atMs)) best = { window, atMs: at };
  }
  return best;
}

/** When the windows first let the app sync after `nowMs`: deny windows ending, allow windows opening. */
function nextSyncMs(windows: readonly SyncWindow[], nowMs: number, manual: boolean): number | undefined {
  const zones = [...new Set(windows.map((w) => w.zone))];
  let t = nowMs;
  for (let step = 0; step < MAX_STEPS; step++) {
    const verdict = verdictAt(windows, t, manual);
    if (!verdict.held) return t;
    const next =
      verdict.cause === 'deny' ? latestEnd(verdict.denies) : earliestOpening(verdict.allows, t)?.atMs;
    if (next === undefined || next <= t || next - nowMs > HORIZON_MS) return undefined;
    // A DST change before then moves every wall clock Argo CD reads: look again at that instant.
    const changes = zones.flatMap((zone) => offsetChangeAfter(zone, t, next) ?? []);
    t = Math.min(next, ...changes);
  }
  return undefined;
}

function label(window: SyncWindow): string {
  return `${window.kind} ${window.schedule} (${window.duration}, ${window.zone})`;
}

/** `22:00Z` on the same UTC day as now, else `2026-03-02T22:00Z`; seconds only when there are some. */
export function formatInstant(atMs: number, nowMs: number): string {
  const iso = new Date(atMs).toISOString();
  const time = iso.slice(17, 19) === '00' ? iso.slice(11, 16) : iso.slice(11, 19);
  return iso.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10)
    ? `${time}Z`
    : `${iso.slice(0, 11)}${time}Z`;
}

/** The reason, and the instant it names (the window's end or opening). */
function describe(
  verdict: Exclude<Verdict, { held: false }>,
  nowMs: number,
): { text: string; atMs?: number } {
  if (verdict.cause === 'deny') {
    const last = [...verdict.denies].sort(
      (a, b) => (b.endMs ?? Infinity) - (a.endMs ?? Infinity),
    )[0] as OpenWindow;
    const end = last.endMs === undefined ? '' : ` until ${formatInstant(last.endMs, nowMs)}`;
    const more = verdict.denies.length > 1 ? ` (and ${verdict.denies.length - 1} more deny window(s))` : '';
    return {
      text: `sync window ${label(last.window)} is active${end}${more}`,
      ...(last.endMs === undefined ? {} : { atMs: last.endMs }),
    };
  }
  const of = verdict.allows.length > 1 ? ` (of ${verdict.allows.length})` : '';
  const next = earliestOpening(verdict.allows, nowMs);
  if (next === undefined) return { text: `no allow sync window${of} is active, and none will open` };
  return {
    text: `no allow sync window${of} is active; sync window ${label(next.window)} opens at ${formatInstant(next.atMs, nowMs)}`,
    atMs: next.atMs,
  };
}

/**
 * Whether the app's AppProject windows hold an automated sync now, and until when. A matching entry
 * Argo CD cannot evaluate (a bad schedule or duration) holds it with no end, as CanSync then fails.
 */
export function syncWindowHold(app: SyncWindowApp, parsed: ParsedSyncWindows, now: Date): SyncWindowHold {
  const nowMs = now.getTime();
  const broken = parsed.problems.find(
    (p) => p.effect === 'blocks-sync' && p.selectors !== undefined && windowMatches(p.selectors, app),
  );
  if (broken !== undefined) {
    return {
      held: true,
      reason: `sync window ${broken.index} cannot be evaluated (${broken.problem}); Argo CD does not sync the apps it matches`,
      windows: [broken.index],
      manualSyncAllowed: false,
    };
  }
  const matching = parsed.windows.filter((w) => windowMatches(w, app));
  const manual = app.manualSync === true;
  const verdict = verdictAt(matching, nowMs, manual);
  if (!verdict.held) return { held: false };
  const until = nextSyncMs(matching, nowMs, manual);
  const reason = describe(verdict, nowMs);
  const windows =
    verdict.cause === 'deny' ? verdict.denies.map((o) => o.window.index) : verdict.allows.map((w) => w.index);
  return {
    held: true,
    reason:
      until === undefined || until === reason.atMs
        ? reason.text
        : `${reason.text}; the windows let it sync at ${formatInstant(until, nowMs)}`,
    ...(until === undefined ? {} : { until: new Date(until) }),
    windows,
    manualSyncAllowed: !verdictAt(matching, nowMs, true).held,
  };
}
