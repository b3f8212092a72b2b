import { describe, expect, it } from 'vitest';
import { degradedRule } from '../../../../lib/audit/rules/degraded.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input } from '../fixture.js';

function check(health: object) {
  return auditApp(input({ application: application({ status: { health } }) }), [degradedRule]).findings;
}

describe('degraded', () => {
  it.each([
    ['Degraded', { status: 'Degraded', message: 'Caused by apps/Deployment:shop/web' }],
    ['Missing (none of its resources exist)', { status: 'Missing' }],
  ])('fires when health is %s, with the health message as evidence', (_name, health) => {
    const findings = check(health);
    expect(findings.map((f) => [f.severity, f.evidence.health, f.evidence.message])).toEqual([
      ['high', health.status, 'message' in health ? health.message : null],
    ]);
  });

  it.each([['Healthy'], ['Progressing'], ['Suspended'], ['Unknown']])(
    'stays quiet when health is %s',
    (status) => {
      expect(check({ status })).toEqual([]);
    },
  );
});
