import { describe, expect, it } from 'vitest';
import type { FindingDraft } from '../../../lib/audit/types.js';
import { createInterner } from '../../../lib/reconcile/intern.js';

const draft = (app: string, evidence: FindingDraft['evidence']): FindingDraft => ({
  rule: 'default-project-or-wildcard',
  severity: 'medium',
  cluster: 'hub',
  namespace: 'argocd',
  app,
  message: ['uses', 'the', 'default', 'AppProject'].join(' '),
  evidence,
});

describe('createInterner', () => {
  it('keeps each finding as it was, sharing one evidence object among equal evidences', () => {
    const shared = createInterner();
    const a = draft('web', { 'spec.project': 'default' });
    const b = draft('api', { 'spec.project': 'default' });
    const c = draft('db', { 'spec.project': 'default', more: 1 });
    const [sa, sb, sc] = [a, b, c].map((d) => shared.finding(d));
    expect([sa, sb, sc]).toEqual([a, b, c]);
    expect(sb?.evidence).toBe(sa?.evidence);
    expect(sc?.evidence).not.toBe(sa?.evidence);
  });

  it('keeps each note as it was', () => {
    const note = {
      kind: 'skipped',
      rule: 'drift',
      cluster: 'hub',
      namespace: 'argocd',
      app: 'web',
      message: 'sync history was not read',
    } as const;
    expect(createInterner().note(note)).toEqual(note);
  });
});
