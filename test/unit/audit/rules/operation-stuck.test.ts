import { describe, expect, it } from 'vitest';
import { operationStuckRule } from '../../../../lib/audit/rules/operation-stuck.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import type { AuditOptions } from '../../../../lib/audit/types.js';
import { application, input } from '../fixture.js';

function check(operationState: object, options: Partial<AuditOptions> = {}) {
  return auditApp(
    input({ application: application({ status: { operationState } }) }),
    [operationStuckRule],
    options,
  ).findings;
}

describe('operation-stuck', () => {
  it.each([
    ['a Running sync started 20 minutes ago', { phase: 'Running', startedAt: '2026-08-01T11:40:00Z' }, 20],
    [
      'a retry whose last attempt finished a minute ago, counted from the first start',
      {
        phase: 'Running',
        startedAt: '2026-08-01T11:00:00Z',
        finishedAt: '2026-08-01T11:59:00Z',
        retryCount: 7,
      },
      60,
    ],
    [
      'a Terminating operation for 30 minutes',
      { phase: 'Terminating', startedAt: '2026-08-01T11:30:00Z' },
      30,
    ],
  ])('fires on %s', (_name, operationState, minutes) => {
    const findings = check(operationState);
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence.runningMinutes).toBe(minutes);
  });

  it.each([
    ['a sync started 15 minutes ago exactly', { phase: 'Running', startedAt: '2026-08-01T11:45:00Z' }, {}],
    [
      'a long Running sync under a 2 h limit',
      { phase: 'Running', startedAt: '2026-08-01T11:00:00Z' },
      { operationStuckAfterMs: 7_200_000 },
    ],
    [
      'an operation that Succeeded long ago',
      { phase: 'Succeeded', startedAt: '2026-07-01T00:00:00Z', finishedAt: '2026-07-01T00:01:00Z' },
      {},
    ],
    ['a Running operation with an unreadable startedAt', { phase: 'Running', startedAt: 'yesterday' }, {}],
    ['a Running operation without startedAt', { phase: 'Running' }, {}],
  ])('stays quiet on %s', (_name, operationState, options) => {
    expect(check(operationState, options)).toEqual([]);
  });
});
