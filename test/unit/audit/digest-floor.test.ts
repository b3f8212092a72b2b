import { describe, expect, it } from 'vitest';
import { filterDigestChanges } from '../../../lib/audit/digest-filter.js';
import type { Finding, Severity } from '../../../lib/audit/types.js';
import { loadConfig } from '../../../lib/config.js';

const finding = (rule: string, severity: Severity): Finding => ({
  rule,
  severity,
  cluster: 'hub',
  namespace: 'argocd',
  app: `${rule}-${severity}`,
  subject: 'Application/argocd/x',
  message: 'm',
  evidence: {},
  firstSeen: '2026-08-01T12:00:00.000Z',
  lastSeen: '2026-08-01T12:00:00.000Z',
});

const created = [
  finding('plaintext-secret', 'critical'),
  finding('drift', 'medium'),
  finding('prune-without-allow-empty', 'low'),
  finding('audit-rule-error', 'info'),
];
const apps = (list: readonly Finding[]) => list.map((f) => f.app);

describe("the digest's severity floor (DIGEST_MIN_SEVERITY)", () => {
  it('is medium unless set, and refuses a severity that does not exist', () => {
    expect(loadConfig({ TABLE_NAME: 't' }).digestMinSeverity).toBe('medium');
    expect(loadConfig({ TABLE_NAME: 't', DIGEST_MIN_SEVERITY: 'high' }).digestMinSeverity).toBe('high');
    expect(() => loadConfig({ TABLE_NAME: 't', DIGEST_MIN_SEVERITY: 'urgent' })).toThrow(
      /^DIGEST_MIN_SEVERITY: must be one of critical, high, medium, low, info$/,
    );
  });

  it('leaves out what is less severe than the floor, in new and resolved alike', () => {
    const out = filterDigestChanges({ created, resolved: created }, undefined, 'medium');
    expect(apps(out.created)).toEqual(['plaintext-secret-critical', 'drift-medium']);
    expect(apps(out.resolved)).toEqual(['plaintext-secret-critical', 'drift-medium']);
  });

  it("yields to the fleet file's audit.digest.minSeverity, and keeps its mutes", () => {
    const lower = filterDigestChanges({ created, resolved: [] }, { minSeverity: 'low' }, 'medium');
    expect(apps(lower.created)).toEqual([
      'plaintext-secret-critical',
      'drift-medium',
      'prune-without-allow-empty-low',
    ]);
    const muted = filterDigestChanges({ created, resolved: [] }, { mute: ['drift'] }, 'medium');
    expect(apps(muted.created)).toEqual(['plaintext-secret-critical']);
  });
});
