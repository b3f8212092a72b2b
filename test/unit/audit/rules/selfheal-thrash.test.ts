import { describe, expect, it } from 'vitest';
import { selfHealThrashRule } from '../../../../lib/audit/rules/selfheal-thrash.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import type { AuditOptions, SyncHistoryEntry } from '../../../../lib/audit/types.js';
import { input } from '../fixture.js';

const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
/** One OutOfSync→Synced flip, `minutesAgo` before 12:00. */
const flip = (minutesAgo: number, revision = SHA): SyncHistoryEntry[] => {
  const at = (m: number) => new Date(Date.parse('2026-08-01T12:00:00Z') - m * 60_000).toISOString();
  return [
    { at: at(minutesAgo + 0.5), syncStatus: 'OutOfSync', revision },
    { at: at(minutesAgo), syncStatus: 'Synced', revision },
  ];
};

function check(history: readonly SyncHistoryEntry[], options: Partial<AuditOptions> = {}) {
  return auditApp(input({ history }), [selfHealThrashRule], options).findings;
}

describe('selfheal-thrash', () => {
  it.each([
    ['three flips in the last hour', [...flip(50), ...flip(30), ...flip(10)], {}, 3],
    ['flips recorded out of order', [...flip(10), ...flip(50), ...flip(30)], {}, 3],
    ['two flips when the threshold is two', [...flip(30), ...flip(10)], { thrashFlips: 2 }, 2],
    [
      'flips spread over three hours with a 4 h window',
      [...flip(170), ...flip(100), ...flip(20)],
      { thrashWindowMs: 4 * 3_600_000 },
      3,
    ],
  ])('fires on %s', (_name, history, options, flips) => {
    const findings = check(history, options);
    expect(findings.map((f) => f.evidence.flips)).toEqual([flips]);
  });

  it.each([
    ['two flips in the last hour', [...flip(30), ...flip(10)]],
    ['three flips of which one is older than the window', [...flip(90), ...flip(30), ...flip(10)]],
    ['three flips at three different revisions', [...flip(50, 'r1'), ...flip(30, 'r2'), ...flip(10, 'r3')]],
    [
      'Synced→OutOfSync moves only',
      [
        { at: '2026-08-01T11:50:00Z', syncStatus: 'Synced', revision: SHA },
        { at: '2026-08-01T11:51:00Z', syncStatus: 'OutOfSync', revision: SHA },
      ],
    ],
    [
      'entries without a revision or with an unreadable time',
      [
        ...flip(50),
        { at: 'soon', syncStatus: 'Synced', revision: SHA },
        { at: '2026-08-01T11:55:00Z', syncStatus: 'Synced' },
      ],
    ],
    ['an empty history', []],
  ])('stays quiet on %s', (_name, history) => {
    expect(check(history)).toEqual([]);
  });

  it('is skipped with a note when the history was not read', () => {
    const result = auditApp(input(), [selfHealThrashRule]);
    expect(result.notes.map((n) => [n.kind, n.rule])).toEqual([['skipped', 'selfheal-thrash']]);
  });
});
