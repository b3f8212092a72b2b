import { describe, expect, it } from 'vitest';
import { parseSyncWindows } from '../../../lib/argocd/sync-window-parse.js';
import { type SyncWindowApp, syncWindowHold, windowMatches } from '../../../lib/argocd/sync-windows.js';

const APP: SyncWindowApp = { name: 'web', namespace: 'shop', server: 'https://spoke-eu.example:6443' };

const project = (...syncWindows: object[]) => parseSyncWindows({ kind: 'AppProject', spec: { syncWindows } });
const every = { applications: ['*'] };
const hold = (at: string, ...syncWindows: object[]) =>
  syncWindowHold(APP, project(...syncWindows), new Date(at));
const until = (at: string, ...syncWindows: object[]) => {
  const result = hold(at, ...syncWindows);
  return result.held ? result.until?.toISOString() : 'not held';
};

describe('syncWindowHold: deny windows', () => {
  const nightly = { kind: 'deny', schedule: '0 22 * * *', duration: '1h', ...every };

  it.each([
    ['before it opens', '2026-01-15T21:59:00Z', false],
    ['as it opens', '2026-01-15T22:00:00Z', true],
    ['inside it', '2026-01-15T22:59:59Z', true],
    ['once its duration has passed', '2026-01-15T23:00:00Z', false],
    ['the next day at noon', '2026-01-16T12:00:00Z', false],
  ])('%s (%s): held %s', (_name, at, held) => {
    expect(hold(at, nightly).held).toBe(held);
  });

  it('names the window and when it ends', () => {
    expect(hold('2026-01-15T22:10:00Z', nightly)).toEqual({
      held: true,
      reason: 'sync window deny 0 22 * * * (1h, UTC) is active until 23:00Z',
      until: new Date('2026-01-15T23:00:00Z'),
      windows: [0],
      manualSyncAllowed: false,
    });
  });

  it('ignores manualSync for an automated sync, and reports that a manual one would pass', () => {
    const result = hold('2026-01-15T22:10:00Z', { ...nightly, manualSync: true });
    expect(result).toMatchObject({ held: true, manualSyncAllowed: true });
    const manual = syncWindowHold(
      { ...APP, manualSync: true },
      project({ ...nightly, manualSync: true }),
      new Date('2026-01-15T22:10:00Z'),
    );
    expect(manual).toEqual({ held: false });
  });

  it('lets a manual sync through only when every active deny window has manualSync', () => {
    const windows = project({ ...nightly, manualSync: true }, { ...nightly, duration: '2h' });
    const manual = syncWindowHold({ ...APP, manualSync: true }, windows, new Date('2026-01-15T22:10:00Z'));
    expect(manual).toMatchObject({ held: true, manualSyncAllowed: false });
  });

  it('waits for the last of overlapping deny windows', () => {
    const result = hold('2026-01-15T22:30:00Z', nightly, {
      ...nightly,
      schedule: '30 22 * * *',
      duration: '2h',
    });
    expect(result).toMatchObject({
      held: true,
      reason:
        'sync window deny 30 22 * * * (2h, UTC) is active until 2026-01-16T00:30Z (and 1 more deny window(s))',
      until: new Date('2026-01-16T00:30:00Z'),
      windows: [0, 1],
    });
  });

  it('chains a deny window into one that opens as it closes', () => {
    expect(until('2026-01-15T22:30:00Z', nightly, { ...nightly, schedule: '0 23 * * *' })).toBe(
      '2026-01-16T00:00:00.000Z',
    );
  });

  it('takes a deny window longer than a day as a span across midnight', () => {
    expect(until('2026-01-17T09:00:00Z', { ...nightly, schedule: '0 18 * * 5', duration: '63h' })).toBe(
      '2026-01-19T09:00:00.000Z',
    );
  });

  it('holds with no end for a schedule that never fires (robfig gives the zero time, which Argo CD reads as active)', () => {
    const result = hold('2026-01-15T12:00:00Z', { ...nightly, schedule: '0 0 31 2 *' });
    expect(result).toEqual({
      held: true,
      reason: 'sync window deny 0 0 31 2 * (1h, UTC) is active',
      windows: [0],
      manualSyncAllowed: false,
    });
  });
});

describe('syncWindowHold: allow windows', () => {
  const morning = { kind: 'allow', schedule: '0 6 * * 1-5', duration: '2h', ...every };

  it('lets the app sync while an allow window is open', () => {
    expect(hold('2026-01-15T07:00:00Z', morning)).toEqual({ held: false });
  });

  it('holds it while none is open, until the next one opens (over the weekend to Monday)', () => {
    expect(hold('2026-01-17T07:00:00Z', morning)).toEqual({
      held: true,
      reason:
        'no allow sync window is active; sync window allow 0 6 * * 1-5 (2h, UTC) opens at 2026-01-19T06:00Z',
      until: new Date('2026-01-19T06:00:00Z'),
      windows: [0],
      manualSyncAllowed: false,
    });
  });

  it('is open when any of several allow windows is', () => {
    const evening = { ...morning, schedule: '0 18 * * *' };
    expect(hold('2026-01-17T19:00:00Z', morning, evening)).toEqual({ held: false });
    expect(hold('2026-01-17T12:00:00Z', morning, evening)).toMatchObject({
      held: true,
      reason: 'no allow sync window (of 2) is active; sync window allow 0 18 * * * (2h, UTC) opens at 18:00Z',
      until: new Date('2026-01-17T18:00:00Z'),
    });
  });

  it('lets a deny window win over an open allow window, then waits for the allow window again', () => {
    const deny = { kind: 'deny', schedule: '0 7 * * *', duration: '3h', ...every };
    expect(hold('2026-01-15T07:30:00Z', morning, deny)).toMatchObject({
      held: true,
      reason:
        'sync window deny 0 7 * * * (3h, UTC) is active until 10:00Z; the windows let it sync at 2026-01-16T06:00Z',
      until: new Date('2026-01-16T06:00:00Z'),
    });
  });

  it('does not hold for allow windows that match other apps only', () => {
    expect(hold('2026-01-17T07:00:00Z', { ...morning, applications: ['billing-*'] })).toEqual({
      held: false,
    });
  });

  it('never opens a window of zero duration', () => {
    expect(hold('2026-01-15T06:00:00Z', { ...morning, duration: '0s' })).toEqual({
      held: true,
      reason: 'no allow sync window is active, and none will open',
      windows: [0],
      manualSyncAllowed: false,
    });
  });

  it('reports a manual sync as allowed only when every allow window has manualSync', () => {
    expect(hold('2026-01-17T07:00:00Z', { ...morning, manualSync: true })).toMatchObject({
      manualSyncAllowed: true,
    });
  });
});

describe('syncWindowHold: time zones', () => {
  const berlin = {
    kind: 'deny',
    schedule: '0 22 * * *',
    duration: '1h',
    timeZone: 'Europe/Berlin',
    ...every,
  };

  it.each([
    ['in winter (CET, UTC+1)', '2026-01-15T21:30:00Z', '2026-01-15T22:00:00.000Z'],
    ['in summer (CEST, UTC+2)', '2026-07-15T20:30:00Z', '2026-07-15T21:00:00.000Z'],
  ])('reads the schedule on the Berlin wall clock %s', (_name, at, end) => {
    expect(until(at, berlin)).toBe(end);
    expect(hold(at, berlin)).toMatchObject({ reason: expect.stringContaining('(1h, Europe/Berlin)') });
  });

  it('is not active at 22:00 UTC in Berlin summer time (it is midnight there)', () => {
    expect(hold('2026-07-15T22:00:00Z', berlin).held).toBe(false);
  });

  it('ends a window spanning the spring-forward jump at its wall-clock end (04:00 CEST = 02:00Z)', () => {
    const night = { ...berlin, schedule: '0 1 * * *', duration: '3h' };
    expect(until('2026-03-29T00:30:00Z', night)).toBe('2026-03-29T02:00:00.000Z');
    expect(hold('2026-03-29T02:00:00Z', night).held).toBe(false);
  });

  it('opens a window whose start falls in the spring-forward gap for what is left of it after the jump', () => {
    const gap = { ...berlin, schedule: '30 2 * * *', duration: '1h' };
    expect(hold('2026-03-29T00:50:00Z', gap).held).toBe(false); // 01:50 CET
    expect(until('2026-03-29T01:10:00Z', gap)).toBe('2026-03-29T01:30:00.000Z'); // 03:10 CEST
  });

  it('lets the app sync when the fall-back hour turns the wall clock back before the window (as Argo CD does)', () => {
    const repeated = { ...berlin, schedule: '30 2 * * *', duration: '1h' };
    // 02:45 CEST; at 01:00Z the clock shows 02:00 CET, before the window's 02:30 start.
    expect(hold('2026-10-25T00:45:00Z', repeated)).toMatchObject({
      held: true,
      until: new Date('2026-10-25T01:00:00Z'),
    });
    expect(hold('2026-10-25T01:10:00Z', repeated).held).toBe(false);
    expect(hold('2026-10-25T01:40:00Z', repeated).held).toBe(true); // 02:40 CET, the second time round
  });

  it('reads an unknown time zone as UTC, as Argo CD does', () => {
    const mars = { ...berlin, timeZone: 'Mars/Olympus' };
    expect(hold('2026-01-15T22:30:00Z', mars)).toMatchObject({
      held: true,
      reason: 'sync window deny 0 22 * * * (1h, UTC) is active until 23:00Z',
    });
  });

  it('honours a CRON_TZ prefix in the schedule', () => {
    expect(
      until('2026-01-15T21:30:00Z', {
        ...berlin,
        timeZone: '',
        schedule: 'CRON_TZ=Europe/Berlin 0 22 * * *',
      }),
    ).toBe('2026-01-15T22:00:00.000Z');
  });
});

describe('windowMatches', () => {
  const sel = (over: object) => ({
    applications: [],
    namespaces: [],
    clusters: [],
    andOperator: false,
    ...over,
  });

  it.each([
    ['an application glob', { applications: ['w*'] }, true],
    ['`*` for applications', { applications: ['*'] }, true],
    ['an application glob for another app', { applications: ['billing-*'] }, false],
    ['a namespace glob on the destination namespace', { namespaces: ['sh?p'] }, true],
    ['a namespace alternative', { namespaces: ['{orders,shop}'] }, true],
    ['a cluster glob on the destination server', { clusters: ['https://spoke-eu.*'] }, true],
    ['a cluster glob for another server', { clusters: ['https://spoke-us.*'] }, false],
    ['any one selector with the default OR', { applications: ['billing'], namespaces: ['shop'] }, true],
    [
      'every set selector with andOperator',
      { applications: ['web'], namespaces: ['shop'], clusters: ['*spoke-eu*'], andOperator: true },
      true,
    ],
    [
      'andOperator with one selector that misses',
      { applications: ['web'], namespaces: ['orders'], andOperator: true },
      false,
    ],
    ['no selector at all (Argo CD matches nothing)', {}, false],
  ])('%s', (_name, over, expected) => {
    expect(windowMatches(sel(over), APP)).toBe(expected);
  });

  it('matches a cluster glob on the destination name', () => {
    expect(
      windowMatches(sel({ clusters: ['prod-*'] }), {
        name: 'web',
        namespace: 'shop',
        clusterName: 'prod-eu',
      }),
    ).toBe(true);
  });

  it('matches a glob of many stars against a long name without backtracking (RE2)', () => {
    const name = 'a'.repeat(5000);
    expect(windowMatches(sel({ applications: [`${'*a'.repeat(30)}b`] }), { name, namespace: 'shop' })).toBe(
      false,
    );
    expect(windowMatches(sel({ applications: [`${'*a'.repeat(30)}`] }), { name, namespace: 'shop' })).toBe(
      true,
    );
  });
});

describe('syncWindowHold: a window Argo CD cannot evaluate', () => {
  it('holds the apps it matches with no end, since Argo CD does not sync them', () => {
    const result = hold('2026-01-15T12:00:00Z', {
      kind: 'deny',
      schedule: '0 22 * * *',
      duration: '1d',
      ...every,
    });
    expect(result).toEqual({
      held: true,
      reason:
        'sync window 0 cannot be evaluated (cannot parse duration: unknown unit "d" in duration "1d"); Argo CD does not sync the apps it matches',
      windows: [0],
      manualSyncAllowed: false,
    });
  });

  it('leaves apps it does not match alone', () => {
    const result = hold('2026-01-15T12:00:00Z', {
      kind: 'deny',
      schedule: 'every night',
      duration: '1h',
      applications: ['billing'],
    });
    expect(result).toEqual({ held: false });
  });

  it('ignores a window of unknown kind', () => {
    expect(
      hold('2026-01-15T22:30:00Z', { kind: 'Deny', schedule: '0 22 * * *', duration: '1h', ...every }),
    ).toEqual({
      held: false,
    });
  });
});
