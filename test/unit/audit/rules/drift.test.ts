import { describe, expect, it } from 'vitest';
import { driftRule } from '../../../../lib/audit/rules/drift.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import type { AuditInput } from '../../../../lib/audit/types.js';
import { application, input } from '../fixture.js';

const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const OTHER = '0f9e8d7c6b5a49382716f5e4d3c2b1a098765432';
const outOfSync = (status: object = {}, spec: object = {}) =>
  application({ spec, status: { sync: { status: 'OutOfSync', revision: SHA }, ...status } });
const multiSource = {
  sources: [{ repoURL: 'https://github.com/org/a' }, { repoURL: 'https://github.com/org/b' }],
};

function check(overrides: Partial<AuditInput>) {
  return auditApp(input({ currentRevision: SHA, ...overrides }), [driftRule]);
}

describe('drift', () => {
  it.each([
    [
      'a multi-source app at the current commit of every source',
      {
        application: application({
          spec: multiSource,
          status: { sync: { status: 'OutOfSync', revisions: [SHA, OTHER] } },
        }),
        currentRevisions: [SHA, OTHER],
      },
    ],
    [
      'an app OutOfSync for ten minutes by the history',
      {
        application: outOfSync(),
        history: [{ at: '2026-08-01T11:50:00Z', syncStatus: 'OutOfSync', revision: SHA }],
      },
    ],
    [
      'an app whose sync operation has finished',
      {
        application: outOfSync({ operationState: { phase: 'Failed', finishedAt: '2026-08-01T11:00:00Z' } }),
      },
    ],
  ])('fires on %s', (_name, overrides) => {
    expect(check(overrides).findings.map((f) => f.rule)).toEqual(['drift']);
  });

  it.each([
    [
      'a multi-source app with one source behind',
      {
        application: application({
          spec: multiSource,
          status: { sync: { status: 'OutOfSync', revisions: [SHA, OTHER] } },
        }),
        currentRevisions: [SHA, SHA],
      },
    ],
    [
      'an app that went OutOfSync a minute ago, inside the grace period',
      {
        application: outOfSync(),
        history: [
          { at: '2026-08-01T11:30:00Z', syncStatus: 'Synced', revision: SHA },
          { at: '2026-08-01T11:59:00Z', syncStatus: 'OutOfSync', revision: SHA },
        ],
      },
    ],
    [
      'an app with a sync operation running',
      { application: outOfSync({ operationState: { phase: 'Running' } }) },
    ],
    ['a Synced app', { application: application({ status: { sync: { status: 'Synced', revision: SHA } } }) }],
    [
      'an app whose sync status is Unknown',
      { application: application({ status: { sync: { status: 'Unknown', revision: SHA } } }) },
    ],
  ])('stays quiet on %s', (_name, overrides) => {
    expect(check(overrides).findings).toEqual([]);
  });

  it('records since when the app is OutOfSync when the history says so', () => {
    const { findings } = check({
      application: outOfSync(),
      history: [{ at: '2026-08-01T11:50:00Z', syncStatus: 'OutOfSync', revision: SHA }],
    });
    expect(findings[0]?.evidence.outOfSyncSince).toBe('2026-08-01T11:50:00.000Z');
  });

  it('is skipped with a note when the current commit is unknown', () => {
    const result = auditApp(input({ application: outOfSync() }), [driftRule]);
    expect(result.findings).toEqual([]);
    expect(result.notes).toEqual([
      expect.objectContaining({
        kind: 'skipped',
        rule: 'drift',
        app: 'web',
        message: expect.stringContaining('current commit'),
      }),
    ]);
  });
});
