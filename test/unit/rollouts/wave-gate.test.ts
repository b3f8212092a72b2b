import { describe, expect, it } from 'vitest';
import type { MaxUnhealthy } from '../../../lib/fleet/fleet-config.js';
import {
  evaluateWaveGate,
  toleratedUnhealthy,
  type WaveAppState,
  type WaveGateInput,
} from '../../../lib/rollouts/wave-gate.js';

const NOW = new Date('2026-12-02T12:00:00.000Z');
const MIN = 60_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

function gate(
  states: readonly WaveAppState[],
  options: Partial<Omit<WaveGateInput, 'apps' | 'wave'>> & {
    soakMs?: number;
    maxUnhealthy?: MaxUnhealthy;
  } = {},
) {
  const { soakMs = 0, maxUnhealthy = { count: 0 }, ...rest } = options;
  return evaluateWaveGate({
    wave: { name: 'canary', soakMs, maxUnhealthy },
    apps: states.map((state, i) => ({ name: `hub/argocd/app-${i}`, state })),
    now: NOW,
    ...rest,
  });
}

describe('toleratedUnhealthy', () => {
  it.each([
    [{ count: 0 }, 10, 0],
    [{ count: 3 }, 1, 3],
    [{ percent: 10 }, 10, 1],
    [{ percent: 10 }, 9, 0],
    [{ percent: 10 }, 19, 1],
    [{ percent: 30 }, 7, 2],
    [{ percent: 100 }, 4, 4],
    [{ percent: 50 }, 0, 0],
  ] as const)('%o of %i apps tolerates %i', (max, total, expected) => {
    expect(toleratedUnhealthy(max, total)).toBe(expected);
  });
});

describe('evaluateWaveGate', () => {
  it.each([
    ['a wave with no apps of this rollout opens the next at once', [], { kind: 'open-next' }],
    ['every app synced and no soak opens the next', ['synced', 'synced'], { kind: 'open-next' }],
    ['superseded apps count as done', ['synced', 'superseded'], { kind: 'open-next' }],
    ['a wave of superseded apps only opens the next', ['superseded'], { kind: 'open-next' }],
  ] as const)('%s', (_name, states, expected) => {
    expect(gate(states)).toEqual(expected);
  });

  it.each(['matched', 'held', 'refreshed', 'syncing', 'out-of-sync', 'aborted'] as const)(
    'waits while an app is %s',
    (state) => {
      expect(gate(['synced', state, 'synced'])).toEqual({
        kind: 'wait',
        pending: 1,
        waiting: ['hub/argocd/app-1'],
      });
    },
  );

  it('lists the first three apps it waits for and counts them all', () => {
    expect(gate(['syncing', 'refreshed', 'synced', 'matched', 'held'])).toEqual({
      kind: 'wait',
      pending: 4,
      waiting: ['hub/argocd/app-0', 'hub/argocd/app-1', 'hub/argocd/app-3'],
    });
  });

  it.each(['failed', 'degraded', 'blocked', 'timeout', 'error'] as const)(
    'halts on one %s app when none is tolerated, even while others still sync',
    (state) => {
      const result = gate(['syncing', state]);
      expect(result).toMatchObject({ kind: 'halt', unhealthy: ['hub/argocd/app-1'] });
      expect(result.kind === 'halt' && result.reason).toBe(
        `wave canary: 1 of 2 apps unhealthy (1 ${state}), more than maxUnhealthy 0: hub/argocd/app-1`,
      );
    },
  );

  it('names the counts per state and the first few apps in the halt reason', () => {
    const result = gate(['failed', 'degraded', 'failed', 'synced', 'timeout', 'synced'], {
      maxUnhealthy: { count: 2 },
    });
    expect(result.kind === 'halt' && result.reason).toBe(
      'wave canary: 4 of 6 apps unhealthy (2 failed, 1 degraded, 1 timeout), more than maxUnhealthy 2: hub/argocd/app-0, hub/argocd/app-1, hub/argocd/app-2 and 1 more',
    );
  });

  it('tolerates up to the count: the unhealthy apps count as done', () => {
    expect(gate(['failed', 'synced', 'synced'], { maxUnhealthy: { count: 1 } })).toEqual({
      kind: 'open-next',
    });
    expect(gate(['failed', 'error', 'synced'], { maxUnhealthy: { count: 1 } }).kind).toBe('halt');
  });

  it('tolerates a percentage of the wave, rounded down', () => {
    const ten = (unhealthy: number) => [
      ...Array.from({ length: unhealthy }, () => 'degraded' as const),
      ...Array.from({ length: 10 - unhealthy }, () => 'synced' as const),
    ];
    expect(gate(ten(1), { maxUnhealthy: { percent: 10 } })).toEqual({ kind: 'open-next' });
    const halted = gate(ten(2), { maxUnhealthy: { percent: 10 } });
    expect(halted.kind === 'halt' && halted.reason).toContain(
      '2 of 10 apps unhealthy (2 degraded), more than maxUnhealthy 1 (10%)',
    );
    // 9 apps at 10% tolerate 0.9, rounded down to none.
    expect(gate(ten(1).slice(0, 9), { maxUnhealthy: { percent: 10 } }).kind).toBe('halt');
  });

  it('soaks from the last sync, then opens the next; the boundary opens', () => {
    const soak = { soakMs: 5 * MIN };
    expect(gate(['synced'], { ...soak, lastSyncedAt: ago(MIN) })).toEqual({
      kind: 'soak',
      until: '2026-12-02T12:04:00.000Z',
    });
    expect(gate(['synced'], { ...soak, lastSyncedAt: ago(5 * MIN - 1) })).toEqual({
      kind: 'soak',
      until: '2026-12-02T12:00:00.001Z',
    });
    expect(gate(['synced'], { ...soak, lastSyncedAt: ago(5 * MIN) })).toEqual({ kind: 'open-next' });
    expect(gate(['synced'], { ...soak, lastSyncedAt: ago(60 * MIN) })).toEqual({ kind: 'open-next' });
  });

  it('soaks from the latest synced finishedAt when lastSyncedAt is not given', () => {
    const result = evaluateWaveGate({
      wave: { name: 'canary', soakMs: 10 * MIN, maxUnhealthy: { count: 0 } },
      apps: [
        { name: 'a', state: 'synced', finishedAt: ago(30 * MIN) },
        { name: 'b', state: 'synced', finishedAt: ago(2 * MIN) },
        { name: 'c', state: 'superseded', finishedAt: ago(0) },
      ],
      now: NOW,
    });
    expect(result).toEqual({ kind: 'soak', until: '2026-12-02T12:08:00.000Z' });
  });

  it('soaks from now when no sync time is known, never opening early', () => {
    expect(gate(['synced'], { soakMs: MIN })).toEqual({ kind: 'soak', until: '2026-12-02T12:01:00.000Z' });
  });

  it('does not soak a wave none of whose apps synced (all superseded or tolerated)', () => {
    expect(gate(['superseded', 'failed'], { soakMs: MIN, maxUnhealthy: { count: 1 } })).toEqual({
      kind: 'open-next',
    });
  });

  it('does not soak before every app is done', () => {
    expect(gate(['synced', 'syncing'], { soakMs: MIN, lastSyncedAt: ago(60 * MIN) }).kind).toBe('wait');
  });

  describe('resume with skipFailed', () => {
    it('opens the next wave of a halted wave', () => {
      expect(gate(['failed', 'degraded', 'synced'], { lastSyncedAt: ago(MIN) }).kind).toBe('halt');
      expect(gate(['failed', 'degraded', 'synced'], { skipFailed: true, lastSyncedAt: ago(MIN) })).toEqual({
        kind: 'open-next',
      });
    });

    it('opens the next even when every app of the wave failed', () => {
      expect(gate(['failed', 'timeout'], { skipFailed: true, soakMs: MIN })).toEqual({ kind: 'open-next' });
    });

    it('still waits for apps on their way and for the soak of the synced ones', () => {
      expect(gate(['failed', 'syncing'], { skipFailed: true }).kind).toBe('wait');
      expect(
        gate(['failed', 'synced'], { skipFailed: true, soakMs: 5 * MIN, lastSyncedAt: ago(MIN) }),
      ).toEqual({
        kind: 'soak',
        until: '2026-12-02T12:04:00.000Z',
      });
    });
  });
});
