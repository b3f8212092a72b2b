import { describe, expect, it } from 'vitest';
import { pruneWithoutAllowEmptyRule } from '../../../../lib/audit/rules/prune-without-allow-empty.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input } from '../fixture.js';

function check(syncPolicy: object) {
  return auditApp(input({ application: application({ spec: { syncPolicy } }) }), [pruneWithoutAllowEmptyRule])
    .findings;
}

describe('prune-without-allow-empty', () => {
  it.each([
    [
      'allowEmpty: true, which lets an empty render prune everything',
      { automated: { prune: true, allowEmpty: true } },
      'high',
      true,
    ],
    ['allowEmpty left unset (guarded only by the default)', { automated: { prune: true } }, 'low', 'unset'],
    [
      'automated.enabled: true with allowEmpty unset',
      { automated: { enabled: true, prune: true } },
      'low',
      'unset',
    ],
  ])('fires on %s', (_name, syncPolicy, severity, allowEmpty) => {
    const findings = check(syncPolicy);
    expect(findings.map((f) => f.severity)).toEqual([severity]);
    expect(findings[0]?.evidence['spec.syncPolicy.automated.allowEmpty']).toBe(allowEmpty);
  });

  it.each([
    ['allowEmpty: false written down', { automated: { prune: true, allowEmpty: false } }],
    ['automated sync without prune', { automated: { selfHeal: true, allowEmpty: true } }],
    ['automation switched off with enabled: false', { automated: { enabled: false, prune: true } }],
    ['manual sync only', { syncOptions: ['CreateNamespace=true'] }],
  ])('stays quiet with %s', (_name, syncPolicy) => {
    expect(check(syncPolicy)).toEqual([]);
  });

  it('says what Argo CD does by default, so the message is not a false alarm', () => {
    const [finding] = check({ automated: { prune: true } });
    expect(finding?.message).toContain('defaults it to false');
    expect(finding?.message).toContain('skips an automated sync that would prune every resource');
  });
});
