import { describe, expect, it } from 'vitest';
import type { BehindApp } from '../../../lib/reconcile/behind.js';
import { planCatchUp } from '../../../lib/reconcile/catch-up.js';
import type { DecisionRecord, StoredApp } from '../../../lib/rollouts/app-model.js';

const behind = (name: string): BehindApp => ({
  cluster: 'hub',
  namespace: 'argocd',
  name,
  synced: 'a'.repeat(40),
  since: 0,
});
const record = (name: string, state: StoredApp['state'], extra: Partial<StoredApp> = {}): StoredApp => ({
  cluster: 'hub',
  namespace: 'argocd',
  name,
  kind: 'Application',
  state,
  version: 1,
  ...extra,
});
const decided = (name: string, decision: DecisionRecord['decision']): DecisionRecord => ({
  cluster: 'hub',
  namespace: 'argocd',
  name,
  kind: 'Application',
  decision,
});

describe('what the catch-up does about the apps behind a commit', () => {
  const now = Date.parse('2026-12-02T10:00:00Z');

  it('refreshes apps the push never reached, retries blocked and errored ones, leaves held and aborted ones', () => {
    const plan = planCatchUp(
      [
        behind('new'),
        behind('blocked'),
        behind('error'),
        behind('held'),
        behind('aborted'),
        behind('failed'),
      ],
      [
        record('blocked', 'blocked'),
        record('error', 'error'),
        record('held', 'held'),
        record('aborted', 'aborted'),
        record('failed', 'failed', { revision: 'b'.repeat(40) }),
      ],
      now,
      60_000,
    );
    expect(plan.refresh.map((a) => a.name)).toEqual(['new', 'failed']);
    expect(plan.retry.map((a) => a.name)).toEqual(['blocked', 'error']);
  });

  it('never refreshes an app the push left alone on purpose (its paths or revision did not match)', () => {
    const plan = planCatchUp([behind('docs-only'), behind('pinned-tag'), behind('lost')], [], now, 60_000, [
      decided('docs-only', 'paths-miss'),
      decided('pinned-tag', 'revision-miss'),
      decided('lost', 'error'),
    ]);
    expect(plan.refresh.map((a) => a.name)).toEqual(['lost']);
  });

  it('leaves an app claimed within the refresh window', () => {
    const claimedAt = new Date(now - 10_000).toISOString();
    const plan = planCatchUp([behind('busy')], [record('busy', 'refreshed', { claimedAt })], now, 60_000);
    expect(plan.refresh).toEqual([]);
  });
});
