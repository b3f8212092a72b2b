import { describe, expect, it } from 'vitest';
import { filterDigestChanges } from '../../../lib/audit/digest-filter.js';
import type { Finding, Severity } from '../../../lib/audit/types.js';

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
  finding('degraded', 'high'),
  finding('drift', 'medium'),
  finding('missing-finalizer', 'low'),
  finding('audit-rule-error', 'info'),
];
const resolved = [finding('floating-image-tag', 'medium'), finding('missing-finalizer', 'low')];
const apps = (list: readonly Finding[]) => list.map((f) => f.app);

describe('filterDigestChanges', () => {
  it.each([
    ['no filter keeps everything', undefined, apps(created), apps(resolved)],
    [
      'minSeverity medium drops low and info, in new and resolved alike',
      { minSeverity: 'medium' as const },
      ['plaintext-secret-critical', 'degraded-high', 'drift-medium'],
      ['floating-image-tag-medium'],
    ],
    [
      'a muted rule is dropped whatever its severity',
      { mute: ['degraded', 'floating-image-tag'] },
      ['plaintext-secret-critical', 'drift-medium', 'missing-finalizer-low', 'audit-rule-error-info'],
      ['missing-finalizer-low'],
    ],
    ['both together', { minSeverity: 'high' as const, mute: ['plaintext-secret'] }, ['degraded-high'], []],
  ])('%s', (_name, filter, expectedCreated, expectedResolved) => {
    const out = filterDigestChanges({ created, resolved }, filter);
    expect(apps(out.created)).toEqual(expectedCreated);
    expect(apps(out.resolved)).toEqual(expectedResolved);
  });
});
