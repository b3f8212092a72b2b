import { describe, expect, it } from 'vitest';
import { judgeWave, type ReleaseWave } from '../../../lib/release/wave-judge.js';

const wave = (extra: Partial<ReleaseWave> = {}): ReleaseWave => ({
  name: 'prod-eu',
  clusters: ['prod-eu-1'],
  soakMs: 0,
  maxUnhealthy: { count: 0 },
  ...extra,
});
const now = new Date('2026-12-02T10:00:00Z');

describe("a wave's gate, judged from its apps' counts", () => {
  it('passes a wave no app of the push landed in at once', () => {
    expect(judgeWave(wave(), undefined, now)).toEqual({ kind: 'next' });
    expect(judgeWave(wave({ soakMs: 60_000 }), { c: {} }, now)).toEqual({ kind: 'next' });
  });

  it('waits while an app is still moving or held, and opens the next once every app is synced', () => {
    expect(judgeWave(wave(), { c: { synced: 3, syncing: 1 } }, now)).toEqual({ kind: 'wait' });
    expect(judgeWave(wave(), { c: { synced: 3, held: 1 } }, now)).toEqual({ kind: 'wait' });
    expect(judgeWave(wave(), { c: { synced: 3, superseded: 1 } }, now)).toEqual({ kind: 'next' });
  });

  it('halts past maxUnhealthy (a count or a percentage rounded down), naming the counts', () => {
    const judged = judgeWave(wave(), { c: { synced: 8, failed: 1, blocked: 1 } }, now);
    expect(judged).toEqual({ kind: 'halt', reason: '1 failed, 1 blocked of 10 apps (at most 0 tolerated)' });
    expect(judgeWave(wave({ maxUnhealthy: { count: 2 } }), { c: { synced: 8, failed: 2 } }, now)).toEqual({
      kind: 'next',
    });
    // 10% of 19 apps is 1.9: one tolerated, two halt.
    const tenPercent = wave({ maxUnhealthy: { percent: 10 } });
    expect(judgeWave(tenPercent, { c: { synced: 18, degraded: 1 } }, now).kind).toBe('next');
    expect(judgeWave(tenPercent, { c: { synced: 17, degraded: 1, timeout: 1 } }, now).kind).toBe('halt');
  });

  it('counts an app no automated sync will take (out-of-sync) against the wave', () => {
    expect(judgeWave(wave(), { c: { synced: 2, 'out-of-sync': 1 } }, now)).toMatchObject({ kind: 'halt' });
  });

  it('halts at once, even while other apps still sync', () => {
    expect(judgeWave(wave(), { c: { syncing: 5, error: 1 } }, now).kind).toBe('halt');
  });

  it('soaks from the last end, then opens the next', () => {
    const soaking = wave({ soakMs: 5 * 60_000 });
    const view = { c: { synced: 4 }, f: '2026-12-02T09:58:00.000Z' };
    expect(judgeWave(soaking, view, now)).toEqual({
      kind: 'soak',
      until: new Date('2026-12-02T10:03:00.000Z'),
    });
    expect(judgeWave(soaking, view, new Date('2026-12-02T10:03:00.000Z'))).toEqual({ kind: 'next' });
  });

  it('lets a halted wave pass with skipFailed once the rest are done', () => {
    const view = { c: { synced: 3, failed: 2 } };
    expect(judgeWave(wave(), view, now, { skipFailed: true })).toEqual({ kind: 'next' });
    expect(judgeWave(wave(), { c: { syncing: 1, failed: 2 } }, now, { skipFailed: true })).toEqual({
      kind: 'wait',
    });
  });
});
