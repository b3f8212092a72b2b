import { describe, expect, it } from 'vitest';
import { auditHistory, deployObservations, nextObservations } from '../../../lib/reconcile/observations.js';
import type { AppObservation } from '../../../lib/reconcile/ports.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const T = Date.parse('2026-09-01T10:00:00Z');
const MIN = 60_000;
const LIMITS = { windowMs: 60 * MIN, max: 5 };

const obs = (minutesAgo: number, syncStatus: string, revision?: string): AppObservation => ({
  at: T - minutesAgo * MIN,
  syncStatus,
  ...(revision === undefined ? {} : { revision }),
});

describe('deployObservations', () => {
  it('turns each recorded deploy into OutOfSync when it started and Synced when it was deployed', () => {
    const raw = {
      status: {
        history: [
          { revision: A, deployStartedAt: '2026-09-01T09:00:00Z', deployedAt: '2026-09-01T09:00:20Z' },
          { revision: B, deployedAt: '2026-09-01T09:30:00Z' },
          { revision: B, deployedAt: 'not a time' },
        ],
      },
    };
    expect(deployObservations(raw, false)).toEqual([
      { at: Date.parse('2026-09-01T09:00:00Z'), syncStatus: 'OutOfSync', revision: A },
      { at: Date.parse('2026-09-01T09:00:20Z'), syncStatus: 'Synced', revision: A },
      { at: Date.parse('2026-09-01T09:30:00Z'), syncStatus: 'OutOfSync', revision: B },
      { at: Date.parse('2026-09-01T09:30:00Z'), syncStatus: 'Synced', revision: B },
    ]);
  });

  it('joins the revisions of a multi-source deploy, as the app status does', () => {
    const raw = { status: { history: [{ revisions: [A, B], deployedAt: '2026-09-01T09:00:00Z' }] } };
    expect(deployObservations(raw, true).map((o) => o.revision)).toEqual([`${A},${B}`, `${A},${B}`]);
  });

  it.each([
    ['no status', {}],
    ['a history that is not a list', { status: { history: 'x' } }],
    ['entries that are not objects', { status: { history: [1, null, 'x'] } }],
  ])('reads nothing from %s', (_name, raw) => {
    expect(deployObservations(raw, false)).toEqual([]);
  });
});

describe('nextObservations', () => {
  it.each<
    [string, AppObservation[], AppObservation[], { syncStatus?: string; revision?: string }, AppObservation[]]
  >([
    ['records the first status seen', [], [], { syncStatus: 'Synced', revision: A }, [obs(0, 'Synced', A)]],
    [
      'keeps the start of an unbroken run instead of adding the same status again',
      [obs(10, 'OutOfSync', A)],
      [],
      { syncStatus: 'OutOfSync', revision: A },
      [obs(10, 'OutOfSync', A)],
    ],
    [
      'adds a change of status',
      [obs(10, 'OutOfSync', A)],
      [],
      { syncStatus: 'Synced', revision: A },
      [obs(10, 'OutOfSync', A), obs(0, 'Synced', A)],
    ],
    [
      'adds a change of revision',
      [obs(10, 'OutOfSync', A)],
      [],
      { syncStatus: 'OutOfSync', revision: B },
      [obs(10, 'OutOfSync', A), obs(0, 'OutOfSync', B)],
    ],
    [
      'starts a new run when a deploy came between two passes that saw the same status',
      [obs(10, 'OutOfSync', A)],
      [obs(6, 'OutOfSync', A), obs(5, 'Synced', A)],
      { syncStatus: 'OutOfSync', revision: A },
      [obs(10, 'OutOfSync', A), obs(0, 'OutOfSync', A)],
    ],
    [
      'drops what is older than the window but keeps the latest',
      [obs(120, 'Synced', A), obs(90, 'OutOfSync', A)],
      [],
      { syncStatus: 'OutOfSync', revision: A },
      [obs(90, 'OutOfSync', A)],
    ],
    ['records nothing when the app has no sync status', [], [], {}, []],
  ])('%s', (_name, stored, deploys, current, expected) => {
    expect(nextObservations(stored, deploys, current, T, LIMITS)).toEqual(expected);
  });

  it('keeps at most the newest few', () => {
    const stored = [5, 4, 3, 2, 1].map((m, i) => obs(m, i % 2 === 0 ? 'Synced' : 'OutOfSync', A));
    const next = nextObservations(stored, [], { syncStatus: 'OutOfSync', revision: A }, T, LIMITS);
    expect(next).toHaveLength(5);
    expect(next.at(-1)).toEqual(obs(0, 'OutOfSync', A));
    expect(next[0]).toEqual(stored[1]);
  });
});

describe('auditHistory', () => {
  it('merges deploys and observations in time order with ISO times', () => {
    expect(auditHistory([obs(5, 'Synced', A)], [obs(10, 'OutOfSync', A), obs(0, 'OutOfSync', B)])).toEqual([
      { at: new Date(T - 10 * MIN).toISOString(), syncStatus: 'OutOfSync', revision: A },
      { at: new Date(T - 5 * MIN).toISOString(), syncStatus: 'Synced', revision: A },
      { at: new Date(T).toISOString(), syncStatus: 'OutOfSync', revision: B },
    ]);
  });
});
