import { describe, expect, it } from 'vitest';
import { defaultProjectOrWildcardRule } from '../../../../lib/audit/rules/default-project-or-wildcard.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input } from '../fixture.js';

const project = (name: string, destinations: object[]) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'AppProject',
  metadata: { name, namespace: 'argocd' },
  spec: { destinations },
});

function check(spec: object, appProject?: unknown) {
  const app = application({ spec });
  return auditApp(input({ application: app, ...(appProject === undefined ? {} : { appProject }) }), [
    defaultProjectOrWildcardRule,
  ]).findings;
}

describe('default-project-or-wildcard', () => {
  it.each([
    ['spec.project: default', { project: 'default' }, undefined, ['spec.project']],
    [
      "destination namespace '*'",
      { destination: { server: 'https://spoke', namespace: '*' } },
      undefined,
      ['spec.destination.namespace'],
    ],
    [
      "an AppProject destination with server '*'",
      {},
      project('shop', [{ server: '*', namespace: 'shop' }]),
      ['appProject.spec.destinations'],
    ],
    [
      "an AppProject destination with name '*'",
      {},
      project('shop', [{ name: '*', namespace: 'shop' }]),
      ['appProject.spec.destinations'],
    ],
  ])('fires on %s', (_name, spec, appProject, keys) => {
    const findings = check(spec, appProject);
    expect(findings.map((f) => Object.keys(f.evidence))).toEqual([keys]);
  });

  it.each([
    ['its own project and no AppProject read', {}, undefined],
    [
      'its own project with explicit destinations',
      {},
      project('shop', [{ server: 'https://spoke', namespace: 'shop' }]),
    ],
    ['an AppProject read for another project name', {}, project('other', [{ server: '*', namespace: '*' }])],
  ])('stays quiet with %s', (_name, spec, appProject) => {
    expect(check(spec, appProject)).toEqual([]);
  });
});
