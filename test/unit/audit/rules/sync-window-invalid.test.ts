import { describe, expect, it } from 'vitest';
import { syncWindowInvalidRule } from '../../../../lib/audit/rules/sync-window-invalid.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input } from '../fixture.js';

const project = (name: string, syncWindows: unknown[]) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'AppProject',
  metadata: { name, namespace: 'argocd' },
  spec: { syncWindows },
});

const ok = { kind: 'deny', schedule: '0 22 * * *', duration: '1h', applications: ['*'] };

function check(appProject?: unknown) {
  return auditApp(
    input({ application: application(), ...(appProject === undefined ? {} : { appProject }) }),
    [syncWindowInvalidRule],
  );
}

describe('sync-window-invalid', () => {
  it.each([
    ['a schedule robfig/cron refuses', { schedule: '0 0 * * 7' }, 'schedule', 'blocks-sync'],
    ['a duration Go refuses', { duration: '1d' }, 'duration', 'blocks-sync'],
    ['an unknown time zone', { timeZone: 'Europe/Atlantis' }, 'timeZone', 'evaluated-in-utc'],
    ['a kind other than allow or deny', { kind: 'freeze' }, 'kind', 'ignored'],
  ])('fires on %s, naming the window index and the problem', (_name, over, field, effect) => {
    const { findings, notes } = check(project('shop', [ok, { ...ok, ...over }]));
    expect(notes).toEqual([]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'sync-window-invalid',
      subject: `AppProject/shop/syncWindows[1].${field}`,
      message: expect.stringMatching(/^AppProject shop sync window 1: /),
      evidence: { index: 1, field, effect, problem: expect.any(String) },
    });
  });

  it('is high when the window it cannot evaluate matches this app, medium otherwise', () => {
    const { findings } = check(
      project('shop', [
        { ...ok, duration: '1d' },
        { ...ok, duration: '1d', applications: ['billing'] },
      ]),
    );
    expect(
      findings.map((f) => [f.severity, f.message.endsWith('Argo CD does not sync this app while it stands')]),
    ).toEqual([
      ['high', true],
      ['medium', false],
    ]);
  });

  it('reports each problem of one window, and never throws on a malformed entry', () => {
    const { findings, notes } = check(project('shop', ['a string', { kind: 'deny', schedule: 5 }]));
    expect(notes).toEqual([]);
    expect(findings.map((f) => f.subject)).toEqual([
      'AppProject/shop/syncWindows[0].entry',
      'AppProject/shop/syncWindows[1].schedule',
      'AppProject/shop/syncWindows[1].duration',
    ]);
  });

  it.each([
    ['no AppProject read', undefined],
    ['well-formed windows', project('shop', [ok, { ...ok, kind: 'allow', timeZone: 'Europe/Berlin' }])],
    ['an AppProject read for another project name', project('other', [{ ...ok, duration: '1d' }])],
  ])('stays quiet with %s', (_name, appProject) => {
    expect(check(appProject)).toEqual({ findings: [], notes: [] });
  });
});
