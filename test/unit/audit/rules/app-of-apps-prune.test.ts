import { describe, expect, it } from 'vitest';
import { appOfAppsPruneRule } from '../../../../lib/audit/rules/app-of-apps-prune.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input, manifests } from '../fixture.js';

const child = (kind: string, metadata: object = {}) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind,
  metadata: { name: 'billing', namespace: 'argocd', ...metadata },
  spec: {},
});
const pruning = { automated: { prune: true, allowEmpty: false } };

function check(docs: readonly Record<string, unknown>[], syncPolicy: object = pruning) {
  return auditApp(
    input({ application: application({ spec: { syncPolicy } }), manifests: manifests(...docs) }),
    [appOfAppsPruneRule],
  ).findings;
}

describe('app-of-apps-prune', () => {
  it.each([
    [
      'a child Application without the resources finalizer (its resources are orphaned)',
      child('Application'),
      pruning,
      'medium',
    ],
    [
      'a child Application with the resources finalizer (its resources are deleted)',
      child('Application', { finalizers: ['resources-finalizer.argocd.argoproj.io/foreground'] }),
      pruning,
      'high',
    ],
    [
      'a child ApplicationSet, whose deletion removes what it generated',
      child('ApplicationSet'),
      pruning,
      'high',
    ],
    [
      'a child with Prune=true, which overrides the root-level Prune=confirm',
      child('Application', { annotations: { 'argocd.argoproj.io/sync-options': 'Prune=true' } }),
      { ...pruning, syncOptions: ['Prune=confirm'] },
      'medium',
    ],
  ])('fires on %s', (_name, doc, syncPolicy, severity) => {
    const findings = check([doc], syncPolicy);
    expect(findings.map((f) => [f.subject, f.severity])).toEqual([[`${doc.kind}/argocd/billing`, severity]]);
  });

  it.each([
    ['automation switched off with enabled: false', { automated: { enabled: false, prune: true } }],
    ['automated sync without prune', { automated: { selfHeal: true } }],
    ['no automated sync policy', {}],
  ])('stays quiet with %s', (_name, syncPolicy) => {
    expect(check([child('Application')], syncPolicy)).toEqual([]);
  });

  it('stays quiet when the child carries Prune=false among other options', () => {
    const doc = child('Application', {
      annotations: { 'argocd.argoproj.io/sync-options': 'Delete=false,Prune=false' },
    });
    expect(check([doc])).toEqual([]);
  });

  it('ignores Application-like kinds of other API groups', () => {
    expect(check([{ ...child('Application'), apiVersion: 'app.k8s.io/v1beta1' }])).toEqual([]);
  });
});
