import { isRecord } from '../matching/raw-object.js';
import { type CronSchedule, compileSchedule } from './cron-schedule.js';
import { parseGoDuration } from './go-duration.js';
import { isLoadableTimeZone } from './zone-clock.js';

/** The apps a window applies to, as Argo CD's `SyncWindows.Matches` reads them (globs). */
export interface SyncWindowSelectors {
  readonly applications: readonly string[];
  readonly namespaces: readonly string[];
  readonly clusters: readonly string[];
  /** `andOperator`: every selector that is set must match (default: any one of them). */
  readonly andOperator: boolean;
}

export const SYNC_WINDOW_KINDS = ['allow', 'deny'] as const;
export type SyncWindowKind = (typeof SYNC_WINDOW_KINDS)[number];

/** One entry of `AppProject.spec.syncWindows` that Argo CD can evaluate. */
export interface SyncWindow extends SyncWindowSelectors {
  /** Its position in `spec.syncWindows`. */
  readonly index: number;
  readonly kind: SyncWindowKind;
  readonly schedule: string;
  readonly duration: string;
  readonly durationMs: number;
  /** The zone the schedule is read in: `timeZone`, or UTC when it is absent or Argo CD cannot load it. */
  readonly zone: string;
  /** Manual syncs pass while this window denies (or, for allow windows, while none is open). */
  readonly manualSync: boolean;
  /** Its `next` is undefined when the schedule never fires: Argo CD (robfig's zero time) takes that as always active. */
  readonly cron: CronSchedule;
}

/**
 * How Argo CD treats a malformed entry: `blocks-sync` (its CanSync fails, so apps the entry matches never
 * auto-sync), `ignored` (a kind other than allow/deny), `evaluated-in-utc` (a zone it cannot load),
 * `always-active` (a schedule that never fires), `never-active` (a duration of zero or less).
 */
export const SYNC_WINDOW_EFFECTS = [
  'blocks-sync',
  'ignored',
  'evaluated-in-utc',
  'always-active',
  'never-active',
] as const;
export type SyncWindowEffect = (typeof SYNC_WINDOW_EFFECTS)[number];

export interface SyncWindowProblem {
  readonly index: number;
  readonly field: 'entry' | 'kind' | 'schedule' | 'duration' | 'timeZone';
  /** What was written (never more than 200 characters of it). */
  readonly value?: string;
  readonly problem: string;
  readonly effect: SyncWindowEffect;
  /** For `blocks-sync`: the entry's selectors, since it holds the apps they match. */
  readonly selectors?: SyncWindowSelectors;
}

export interface ParsedSyncWindows {
  readonly windows: readonly SyncWindow[];
  readonly problems: readonly SyncWindowProblem[];
}

const VALUE_LIMIT = 200;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function shown(value: string): string {
  return value.length > VALUE_LIMIT ? `${value.slice(0, VALUE_LIMIT)}…` : value;
}

/** The windows of an AppProject (the whole object, or its spec); never throws on what it finds. */
export function parseSyncWindows(project: unknown): ParsedSyncWindows {
  const spec = isRecord(project) && isRecord(project.spec) ? project.spec : project;
  const raw = isRecord(spec) && Array.isArray(spec.syncWindows) ? spec.syncWindows : [];
  const windows: SyncWindow[] = [];
  const problems: SyncWindowProblem[] = [];
  raw.forEach((entry, index) => {
    const parsed = parseEntry(entry, index);
    problems.push(...parsed.problems);
    if (parsed.window !== undefined) windows.push(parsed.window);
  });
  return { windows, problems };
}

function parseEntry(entry: unknown, index: number): { window?: SyncWindow; problems: SyncWindowProblem[] } {
  if (!isRecord(entry)) {
    return { problems: [{ index, field: 'entry', problem: 'not an object', effect: 'ignored' }] };
  }
  const selectors: SyncWindowSelectors = {
    applications: strings(entry.applications),
    namespaces: strings(entry.namespaces),
    clusters: strings(entry.clusters),
    andOperator: entry.andOperator === true,
  };
  const problems: SyncWindowProblem[] = [];
  const note = (
    field: SyncWindowProblem['field'],
    value: string,
    problem: string,
    effect: SyncWindowEffect,
  ) =>
    problems.push({
      index,
      field,
      value: shown(value),
      problem: shown(problem),
      effect,
      ...(effect === 'blocks-sync' ? { selectors } : {}),
    });

  const schedule = str(entry.schedule);
  const compiled = compileSchedule(schedule);
  if ('error' in compiled)
    note('schedule', schedule, `cannot parse schedule: ${compiled.error}`, 'blocks-sync');
  else if (compiled.schedule.next(0) === undefined) {
    note('schedule', schedule, 'the schedule never fires', 'always-active');
  }
  const duration = str(entry.duration);
  const parsedDuration = parseGoDuration(duration);
  if ('error' in parsedDuration)
    note('duration', duration, `cannot parse duration: ${parsedDuration.error}`, 'blocks-sync');
  else if (parsedDuration.ms <= 0) note('duration', duration, 'a duration of zero or less', 'never-active');
  const kind = str(entry.kind);
  const known = (SYNC_WINDOW_KINDS as readonly string[]).includes(kind);
  if (!known) note('kind', kind, `kind '${kind}' is neither allow nor deny`, 'ignored');
  const timeZone = str(entry.timeZone);
  const loadable = timeZone === '' || isLoadableTimeZone(timeZone);
  if (!loadable) note('timeZone', timeZone, `unknown time zone '${timeZone}'`, 'evaluated-in-utc');

  if (!known || 'error' in compiled || 'error' in parsedDuration) return { problems };
  const window: SyncWindow = {
    index,
    kind: kind as SyncWindowKind,
    schedule,
    duration,
    durationMs: parsedDuration.ms,
    zone: loadable && timeZone !== '' && timeZone !== 'Local' ? timeZone : 'UTC',
    manualSync: entry.manualSync === true,
    cron: compiled.schedule,
    ...selectors,
  };
  return { window, problems };
}
