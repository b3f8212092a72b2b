import { Cron } from 'croner';
import { isLoadableTimeZone } from './zone-clock.js';

/**
 * A sync window's `schedule` as Argo CD reads it: robfig/cron with the five standard fields (minute,
 * hour, day of month, month, day of week), no `@daily` descriptors, an optional `CRON_TZ=`/`TZ=` prefix.
 * The grammar is checked here, so what robfig refuses is refused (`7` for Sunday, `L`, `W`, `#`);
 * croner then finds the times.
 */
export interface CronSchedule {
  /** The first time after `afterMs` the schedule fires; undefined when it never does (`0 0 31 2 *`). */
  next(afterMs: number): number | undefined;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['', 'jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

export type CompiledSchedule = { readonly schedule: CronSchedule } | { readonly error: string };

function value(text: string, field: FieldSpec): number | string {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named > 0 || (named === 0 && field.names?.[0] !== '')) return named;
  if (!/^\+?\d+$/.test(text)) return `failed to parse int from ${text}`;
  return Number(text);
}

/** One comma-separated part of a field, checked as robfig's getRange; the text handed on to croner. */
function range(part: string, field: FieldSpec): string {
  const [span = '', step, extra] = part.split('/');
  if (extra !== undefined) throw new Error(`too many slashes: ${part}`);
  const ends = span.split('-');
  if (ends.length > 2) throw new Error(`too many hyphens: ${part}`);
  const star = span === '*' || span === '?';
  let start = field.min;
  let end = field.max;
  if (!star) {
    const low = value(ends[0] ?? '', field);
    if (typeof low === 'string') throw new Error(low);
    start = low;
    const high = ends[1] === undefined ? (step === undefined ? low : field.max) : value(ends[1], field);
    if (typeof high === 'string') throw new Error(high);
    end = high;
  }
  let by = 1;
  if (step !== undefined) {
    if (!/^\+?\d+$/.test(step)) throw new Error(`failed to parse int from ${step}`);
    by = Number(step);
    if (by === 0) throw new Error(`step of range should be a positive number: ${part}`);
  }
  if (start < field.min)
    throw new Error(`beginning of range (${start}) below minimum (${field.min}): ${part}`);
  if (end > field.max) throw new Error(`end of range (${end}) above maximum (${field.max}): ${part}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${part}`);
  // robfig keeps the "any day" meaning of `*` only without a step; `*/2` is a restriction, as `1-31/2` is.
  if (star && by === 1) return '*';
  return `${start}-${end}${by === 1 ? '' : `/${by}`}`;
}

/** Parses `schedule` as Argo CD does; never throws. */
export function compileSchedule(schedule: string): CompiledSchedule {
  let spec = schedule.trim();
  let zone = 'UTC';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const name = spec.slice(spec.indexOf('=') + 1, space === -1 ? spec.length : space);
    if (space === -1 || !isLoadableTimeZone(name)) return { error: `provided bad location ${name}` };
    zone = name === 'Local' ? 'UTC' : name;
    spec = spec.slice(space).trim();
  }
  if (spec === '') return { error: 'empty spec string' };
  if (spec.startsWith('@')) return { error: `parser does not accept descriptors: ${spec}` };
  const fields = spec.split(/\s+/);
  if (fields.length !== FIELDS.length) {
    return { error: `expected exactly 5 fields, found ${fields.length}: ${spec}` };
  }
  let expression: string;
  try {
    expression = fields
      .map((text, i) => {
        const field = FIELDS[i] as FieldSpec;
        return text
          .split(',')
          .map((part) => range(part, field))
          .join(',');
      })
      .join(' ');
  } catch (error) {
    return { error: (error as Error).message };
  }
  return { schedule: scheduleOf(expression, zone) };
}

const MINUTE_MS = 60_000;
const NEXT_CACHE_LIMIT = 256;

/**
 * The expression on croner (day of month or day of week, as robfig reads two restricted day fields).
 * Five-field schedules fire on whole minutes, so the next time after `t` depends only on t's minute:
 * answers are kept per minute, since a fan-out asks the same for every app.
 */
function scheduleOf(expression: string, zone: string): CronSchedule {
  let cron: Cron | undefined;
  try {
    cron = new Cron(expression, { timezone: zone, mode: '5-part', domAndDow: false });
  } catch {
    cron = undefined; // checked above already: what croner still refuses never fires
  }
  const byMinute = new Map<number, number | undefined>();
  return {
    next(afterMs) {
      if (cron === undefined) return undefined;
      const minute = Math.floor(afterMs / MINUTE_MS);
      if (byMinute.has(minute)) return byMinute.get(minute);
      // null: a day that never comes (31 February), where robfig's Next gives the zero time
      const next = cron.nextRun(new Date(minute * MINUTE_MS))?.getTime();
      if (byMinute.size >= NEXT_CACHE_LIMIT) byMinute.clear();
      byMinute.set(minute, next);
      return next;
    },
  };
}
