import { describe, expect, it } from 'vitest';
import { findingKey, reconcileFindings } from '../../../lib/audit/lifecycle.js';
import type { Finding, FindingDraft } from '../../../lib/audit/types.js';

const T1 = new Date('2026-08-01T12:00:00Z');
const T2 = new Date('2026-08-01T12:05:00Z');
const T3 = new Date('2026-08-01T12:10:00Z');
const ALL = { clusters: ['hub-eu', 'hub-us'] };

const draft = (overrides: Partial<FindingDraft> = {}): FindingDraft => ({
  rule: 'drift',
  severity: 'medium',
  cluster: 'hub-eu',
  namespace: 'argocd',
  app: 'web',
  message: 'OutOfSync at the current revision a1b2c3d4e5f6',
  evidence: { revision: 'a1b2c3d4e5f6' },
  ...overrides,
});

describe('reconcileFindings', () => {
  it('creates a new finding once, with firstSeen and lastSeen set to now', () => {
    const first = reconcileFindings([], [draft()], T1, ALL);
    expect(first.created).toEqual([{ ...draft(), firstSeen: T1.toISOString(), lastSeen: T1.toISOString() }]);
    expect(first.upserts).toEqual(first.created);
    const second = reconcileFindings(first.upserts, [draft()], T2, ALL);
    expect(second.created).toEqual([]);
  });

  it('updates lastSeen, message and evidence while the finding is seen, keeping firstSeen', () => {
    const [open] = reconcileFindings([], [draft()], T1, ALL).upserts;
    const later = draft({ message: 'OutOfSync (2 resource(s) differ)', evidence: { revision: 'b' } });
    const result = reconcileFindings(open === undefined ? [] : [open], [later], T2, ALL);
    expect(result.upserts).toEqual([{ ...later, firstSeen: T1.toISOString(), lastSeen: T2.toISOString() }]);
    expect([result.created, result.resolved, result.unchanged]).toEqual([[], [], []]);
  });

  it('resolves an open finding that is no longer seen on a cluster that was read', () => {
    const previous = reconcileFindings([], [draft()], T1, ALL).upserts;
    const result = reconcileFindings(previous, [], T2, ALL);
    expect(result.resolved).toEqual([{ ...previous[0], resolvedAt: T2.toISOString() }]);
    expect(result.upserts).toEqual(result.resolved);
  });

  it('does not resolve findings of a cluster that was not read in this pass', () => {
    const previous = reconcileFindings([], [draft({ cluster: 'hub-us' })], T1, ALL).upserts;
    const result = reconcileFindings(previous, [], T2, { clusters: ['hub-eu'] });
    expect(result.resolved).toEqual([]);
    expect(result.upserts).toEqual([]);
    expect(result.unchanged).toEqual(previous);
  });

  it.each([
    ['skipped', 'drift', true],
    ['partial', 'drift', true],
    ['rule-error', 'drift', true],
    ['skipped', '*', true],
    ['skipped', 'degraded', false],
    ['ignored-objects', '*', false],
  ] as const)('after a %s note for rule %s, keeps the finding open: %s', (kind, rule, kept) => {
    const previous = reconcileFindings([], [draft()], T1, ALL).upserts;
    const notes = [{ kind, rule, cluster: 'hub-eu', namespace: 'argocd', app: 'web' }];
    const result = reconcileFindings(previous, [], T2, { ...ALL, notes });
    expect(result.resolved.length === 0).toBe(kept);
  });

  it('reopens a resolved finding as created, clearing resolvedAt and keeping firstSeen', () => {
    const opened = reconcileFindings([], [draft()], T1, ALL).upserts;
    const closed = reconcileFindings(opened, [], T2, ALL).upserts;
    const result = reconcileFindings(closed, [draft()], T3, ALL);
    expect(result.created).toEqual([{ ...draft(), firstSeen: T1.toISOString(), lastSeen: T3.toISOString() }]);
    expect(result.created[0]).not.toHaveProperty('resolvedAt');
  });

  it('leaves resolved findings that stay fixed untouched', () => {
    const closed = reconcileFindings(reconcileFindings([], [draft()], T1, ALL).upserts, [], T2, ALL).upserts;
    const result = reconcileFindings(closed, [], T3, ALL);
    expect(result).toEqual({ upserts: [], created: [], resolved: [], unchanged: closed });
  });

  it('tells findings apart by cluster, rule, namespace, app and subject', () => {
    const drafts = [
      draft(),
      draft({ cluster: 'hub-us' }),
      draft({ rule: 'degraded' }),
      draft({ namespace: 'argocd-2' }),
      draft({ app: 'api' }),
      draft({ subject: 'Deployment/shop/web' }),
      draft({ subject: 'Deployment/shop/api' }),
    ];
    expect(new Set(drafts.map(findingKey)).size).toBe(drafts.length);
    expect(reconcileFindings([], [...drafts, draft()], T1, ALL).created).toHaveLength(drafts.length);
  });

  it('uses the table sort key layout cluster#rule#namespace#app#subject', () => {
    expect(findingKey(draft({ subject: 'Secret/shop/db' }))).toBe('hub-eu#drift#argocd#web#Secret/shop/db');
    expect(findingKey(draft())).toBe('hub-eu#drift#argocd#web#');
  });

  it('does not carry a stray resolvedAt from an object passed as a draft', () => {
    const stale = { ...draft(), firstSeen: 'x', lastSeen: 'x', resolvedAt: 'x' } as Finding;
    expect(reconcileFindings([], [stale], T1, ALL).created[0]).not.toHaveProperty('resolvedAt');
  });
});
