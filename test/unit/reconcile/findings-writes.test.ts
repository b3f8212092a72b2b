import { describe, expect, it } from 'vitest';
import { reconcileFindings } from '../../../lib/audit/lifecycle.js';
import type { Finding, FindingDraft } from '../../../lib/audit/types.js';
import { findingsToWrite, openAfter } from '../../../lib/reconcile/findings-writes.js';

const HOUR = 3600_000;
const T0 = new Date('2026-09-01T10:00:00Z');

const draft = (app: string, overrides: Partial<FindingDraft> = {}): FindingDraft => ({
  rule: 'missing-finalizer',
  severity: 'low',
  cluster: 'hub',
  namespace: 'argocd',
  app,
  message: 'no finalizer',
  evidence: { finalizers: [] },
  ...overrides,
});

const stored = (app: string, lastSeenAgoMs: number, overrides: Partial<Finding> = {}): Finding => ({
  ...draft(app),
  firstSeen: new Date(T0.getTime() - 2 * HOUR).toISOString(),
  lastSeen: new Date(T0.getTime() - lastSeenAgoMs).toISOString(),
  ...overrides,
});

function writes(previous: Finding[], current: FindingDraft[]): string[] {
  const changes = reconcileFindings(previous, current, T0, { clusters: ['hub'] });
  return findingsToWrite(changes, previous, T0, HOUR).map(
    (f) => `${f.app}:${f.resolvedAt ? 'resolved' : 'open'}`,
  );
}

describe('findingsToWrite', () => {
  it.each<[string, Finding[], FindingDraft[], string[]]>([
    ['writes a new finding', [], [draft('web')], ['web:open']],
    ['skips an unchanged finding seen within the hour', [stored('web', 5 * 60_000)], [draft('web')], []],
    [
      'rewrites an unchanged finding last written an hour ago',
      [stored('web', HOUR)],
      [draft('web')],
      ['web:open'],
    ],
    [
      'writes a finding whose message changed',
      [stored('web', 60_000)],
      [draft('web', { message: 'still no finalizer' })],
      ['web:open'],
    ],
    [
      'writes a finding whose evidence changed',
      [stored('web', 60_000)],
      [draft('web', { evidence: { finalizers: ['x'] } })],
      ['web:open'],
    ],
    [
      'writes a finding whose severity changed',
      [stored('web', 60_000)],
      [draft('web', { severity: 'high' })],
      ['web:open'],
    ],
    ['writes a resolution', [stored('web', 60_000)], [], ['web:resolved']],
    [
      'writes a reopened finding',
      [stored('web', 60_000, { resolvedAt: new Date(T0.getTime() - 60_000).toISOString() })],
      [draft('web')],
      ['web:open'],
    ],
    [
      'leaves an old resolved finding alone',
      [stored('web', HOUR, { resolvedAt: new Date(T0.getTime() - HOUR).toISOString() })],
      [],
      [],
    ],
  ])('%s', (_name, previous, current, expected) => {
    expect(writes(previous, current)).toEqual(expected);
  });

  it('counts the findings open after the pass, written or not', () => {
    const previous = [
      stored('a', 60_000),
      stored('b', 60_000),
      stored('c', 60_000, { resolvedAt: T0.toISOString() }),
    ];
    const changes = reconcileFindings(previous, [draft('a'), draft('d')], T0, { clusters: ['hub'] });
    expect(openAfter(changes)).toBe(2);
  });
});
