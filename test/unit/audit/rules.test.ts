import { describe, expect, it } from 'vitest';
import { AUDIT_RULES, ruleById } from '../../../lib/audit/rules.js';
import { auditApp } from '../../../lib/audit/run-audit.js';
import { loadFixture } from './fixture.js';

function run(ruleId: string, fixture: string) {
  const rule = ruleById(ruleId);
  if (rule === undefined) throw new Error(`no rule ${ruleId}`);
  return auditApp(loadFixture(fixture), [rule]);
}

describe('each audit rule on a fixture app that breaks it', () => {
  it.each([
    [
      'drift fires when the synced revision is the current commit but the app is OutOfSync',
      'drift',
      undefined,
    ],
    ['degraded fires on a Deployment past its progress deadline', 'degraded', undefined],
    ['operation-stuck fires on a failing retry loop that began 40 minutes ago', 'operation-stuck', undefined],
    ['selfheal-thrash fires on four flips at one revision within the hour', 'selfheal-thrash', undefined],
    ['prune-without-allow-empty fires when allowEmpty is left unset', 'prune-without-allow-empty', undefined],
    [
      'app-of-apps-prune fires on the child Application without Prune=confirm',
      'app-of-apps-prune',
      'Application/argocd/billing',
    ],
    [
      'hpa-replicas-not-ignored fires on a Deployment whose replicas both Git and an HPA set',
      'hpa-replicas-not-ignored',
      'Deployment/shop/web',
    ],
    [
      'crd-without-wave fires on a CRD sharing wave 0 with its ClusterIssuer',
      'crd-without-wave',
      'CustomResourceDefinition/clusterissuers.cert-manager.io',
    ],
    [
      'plaintext-secret fires on a Secret with data and stringData',
      'plaintext-secret',
      'Secret/orders/orders-db',
    ],
    ['floating-image-tag fires on a CronJob on :latest', 'floating-image-tag', 'CronJob/reports/nightly'],
    ['missing-finalizer fires when only another finalizer is set', 'missing-finalizer', undefined],
    [
      'default-project-or-wildcard fires on an app without a project',
      'default-project-or-wildcard',
      undefined,
    ],
    [
      'sync-window-invalid fires on a deny window with a duration of 1d',
      'sync-window-invalid',
      'AppProject/shop/syncWindows[0].duration',
    ],
  ])('%s', (_name, ruleId, subject) => {
    const { findings, notes } = run(ruleId, `${ruleId}.fires`);
    expect(notes).toEqual([]);
    expect(findings.length).toBeGreaterThan(0);
    expect(
      findings.every((f) => f.rule === ruleId && f.cluster === 'hub-eu' && f.namespace === 'argocd'),
    ).toBe(true);
    expect(findings.map((f) => f.subject)).toContain(subject);
  });
});

describe('each audit rule on a fixture app that keeps to it', () => {
  it.each([
    ['drift stays quiet when the synced revision is behind the branch (a missed webhook)', 'drift'],
    ['degraded stays quiet while the app is Progressing', 'degraded'],
    ['operation-stuck stays quiet on a sync five minutes old', 'operation-stuck'],
    ['selfheal-thrash stays quiet when each flip is a new commit', 'selfheal-thrash'],
    [
      'prune-without-allow-empty stays quiet with allowEmpty: false written down',
      'prune-without-allow-empty',
    ],
    ['app-of-apps-prune stays quiet when the root sets Prune=confirm for all children', 'app-of-apps-prune'],
    ['hpa-replicas-not-ignored stays quiet when Git does not set replicas', 'hpa-replicas-not-ignored'],
    ['crd-without-wave stays quiet when the CRD is one wave earlier', 'crd-without-wave'],
    ['plaintext-secret stays quiet for an ExternalSecret and a Secret without data', 'plaintext-secret'],
    ['floating-image-tag stays quiet for version tags, digests and registry ports', 'floating-image-tag'],
    ['missing-finalizer stays quiet with the /background finalizer', 'missing-finalizer'],
    [
      'default-project-or-wildcard stays quiet in a project with explicit destinations',
      'default-project-or-wildcard',
    ],
    ['sync-window-invalid stays quiet on well-formed allow and deny windows', 'sync-window-invalid'],
  ])('%s', (_name, ruleId) => {
    expect(run(ruleId, `${ruleId}.quiet`)).toEqual({ findings: [], notes: [] });
  });
});

describe('a production-ready app', () => {
  it('passes every rule without a finding or a note', () => {
    expect(auditApp(loadFixture('good-app'), AUDIT_RULES)).toEqual({ findings: [], notes: [] });
  });

  it('registers thirteen rules with unique ids, a title and a one-line fix', () => {
    const ids = AUDIT_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(13);
    for (const rule of AUDIT_RULES) {
      expect(rule.title.length).toBeGreaterThan(0);
      expect(rule.docs).not.toContain('\n');
    }
  });
});
