import { describe, expect, it } from 'vitest';
import { compileSchedule } from '../../../lib/argocd/cron-schedule.js';
import { parseGoDuration } from '../../../lib/argocd/go-duration.js';
import { parseSyncWindows } from '../../../lib/argocd/sync-window-parse.js';

const window = (over: object) => ({
  kind: 'deny',
  schedule: '0 22 * * *',
  duration: '1h',
  applications: ['*'],
  ...over,
});
const parse = (...syncWindows: unknown[]) => parseSyncWindows({ spec: { syncWindows } });

describe('parseGoDuration', () => {
  it.each([
    ['1h', 3_600_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['90s', 90_000],
    ['500ms', 500],
    ['0', 0],
    ['-1h', -3_600_000],
  ])('reads %s', (text, ms) => {
    expect(parseGoDuration(text)).toEqual({ ms });
  });

  it.each([
    ['1d', 'unknown unit "d" in duration "1d"'],
    ['60', 'missing unit in duration "60"'],
    ['', 'invalid duration ""'],
    ['h', 'invalid duration "h"'],
    ['1 h', 'unknown unit " h" in duration "1 h"'],
  ])('refuses %j as Go does', (text, error) => {
    expect(parseGoDuration(text)).toEqual({ error });
  });
});

describe('compileSchedule', () => {
  const nextAfter = (schedule: string, at: string) => {
    const compiled = compileSchedule(schedule);
    if ('error' in compiled) throw new Error(compiled.error);
    const next = compiled.schedule.next(Date.parse(at));
    return next === undefined ? undefined : new Date(next).toISOString();
  };

  it.each([
    ['0 22 * * *', '2026-01-15T12:00:00Z', '2026-01-15T22:00:00.000Z'],
    ['*/15 9-17 * * MON-FRI', '2026-01-17T12:00:00Z', '2026-01-19T09:00:00.000Z'],
    ['5/20 * * * *', '2026-01-15T12:06:00Z', '2026-01-15T12:25:00.000Z'],
    ['0 0 ? jan,Jul *', '2026-02-01T00:00:00Z', '2026-07-01T00:00:00.000Z'],
    // Both day fields restricted: either matches (Thursday the 15th, and the 1st of February).
    ['0 0 1 * 4', '2026-01-14T12:00:00Z', '2026-01-15T00:00:00.000Z'],
    // robfig reads `*/2` as a restriction, so a Monday (the 19th) also matches.
    ['0 0 */2 * 1', '2026-01-17T12:00:00Z', '2026-01-19T00:00:00.000Z'],
  ])('%s fires after %s at %s', (schedule, at, next) => {
    expect(nextAfter(schedule, at)).toBe(next);
  });

  it('never fires on 31 February', () => {
    expect(nextAfter('0 0 31 2 *', '2026-01-01T00:00:00Z')).toBeUndefined();
  });

  it.each([
    ['* * * *', 'expected exactly 5 fields, found 4: * * * *'],
    ['0 0 * * * *', 'expected exactly 5 fields, found 6: 0 0 * * * *'],
    ['@daily', 'parser does not accept descriptors: @daily'],
    ['0 0 * * 7', 'end of range (7) above maximum (6): 7'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['0 0 L * *', 'failed to parse int from L'],
    ['0 0 * * 1#2', 'failed to parse int from 1#2'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['CRON_TZ=Nowhere/City 0 0 * * *', 'provided bad location Nowhere/City'],
    ['', 'empty spec string'],
  ])('refuses %j as robfig/cron does', (schedule, error) => {
    expect(compileSchedule(schedule)).toEqual({ error });
  });
});

describe('parseSyncWindows', () => {
  it('reads a window with its selectors and flags', () => {
    const { windows, problems } = parse(
      window({
        kind: 'allow',
        namespaces: ['shop'],
        clusters: ['prod-*'],
        manualSync: true,
        andOperator: true,
        timeZone: 'Europe/Berlin',
      }),
    );
    expect(problems).toEqual([]);
    expect(windows).toMatchObject([
      {
        index: 0,
        kind: 'allow',
        schedule: '0 22 * * *',
        duration: '1h',
        durationMs: 3_600_000,
        zone: 'Europe/Berlin',
        manualSync: true,
        andOperator: true,
        applications: ['*'],
        namespaces: ['shop'],
        clusters: ['prod-*'],
      },
    ]);
  });

  it('reads the spec alone, and a project without windows as none', () => {
    expect(parseSyncWindows({ syncWindows: [window({})] }).windows).toHaveLength(1);
    expect(parseSyncWindows({ spec: {} })).toEqual({ windows: [], problems: [] });
    expect(parseSyncWindows(undefined)).toEqual({ windows: [], problems: [] });
  });

  it.each([
    ['a bad schedule', { schedule: '0 25 * * *' }, 'schedule', 'blocks-sync', false],
    ['a bad duration', { duration: '2 hours' }, 'duration', 'blocks-sync', false],
    ['an unknown kind', { kind: 'block' }, 'kind', 'ignored', false],
    ['an unknown time zone', { timeZone: 'Europe/Atlantis' }, 'timeZone', 'evaluated-in-utc', true],
    [
      'a time zone in the wrong case (zoneinfo is case-sensitive)',
      { timeZone: 'europe/berlin' },
      'timeZone',
      'evaluated-in-utc',
      true,
    ],
    ['an offset for a time zone', { timeZone: '+01:00' }, 'timeZone', 'evaluated-in-utc', true],
    ['a schedule that never fires', { schedule: '0 0 30 2 *' }, 'schedule', 'always-active', true],
    ['a zero duration', { duration: '0s' }, 'duration', 'never-active', true],
  ])('reports %s as a problem beside the windows', (_name, over, field, effect, kept) => {
    const { windows, problems } = parse(window({}), window(over));
    expect(problems).toMatchObject([{ index: 1, field, effect }]);
    expect(windows.map((w) => w.index)).toEqual(kept ? [0, 1] : [0]);
  });

  it('keeps the selectors of a window Argo CD cannot evaluate, and shortens a long value and its problem', () => {
    const { problems } = parse(window({ schedule: 'x'.repeat(500), namespaces: ['shop'] }));
    expect(problems[0]?.problem).toHaveLength(201);
    expect(problems[0]).toMatchObject({
      index: 0,
      value: `${'x'.repeat(200)}…`,
      selectors: { applications: ['*'], namespaces: ['shop'], clusters: [], andOperator: false },
    });
  });

  it.each([
    ['a string', 'deny at night'],
    ['null', null],
    ['numbers for every field', { kind: 1, schedule: 2, duration: 3, timeZone: 4, applications: 'web' }],
  ])('never throws on %s', (_name, entry) => {
    expect(() => parse(entry)).not.toThrow();
    expect(parse(entry).problems.length).toBeGreaterThan(0);
  });

  it('accepts Argo CD zone aliases and an empty time zone', () => {
    expect(parse(window({ timeZone: 'US/Pacific' }), window({ timeZone: '' })).problems).toEqual([]);
  });
});
