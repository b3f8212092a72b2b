import { describe, expect, it } from 'vitest';
import { crdWithoutWaveRule } from '../../../../lib/audit/rules/crd-without-wave.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input, manifests } from '../fixture.js';

const crd = (annotations: Record<string, string> = {}, scope = 'Namespaced') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', annotations },
  spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, scope },
});
const widget = (annotations: Record<string, string> = {}, apiVersion = 'example.com/v1') => ({
  apiVersion,
  kind: 'Widget',
  metadata: { name: 'w1', annotations },
  spec: {},
});
const wave = (n: string) => ({ 'argocd.argoproj.io/sync-wave': n });

function check(docs: readonly Record<string, unknown>[], syncOptions: readonly string[] = []) {
  return auditApp(
    input({
      application: application({ spec: { syncPolicy: { syncOptions } } }),
      manifests: manifests(...docs),
    }),
    [crdWithoutWaveRule],
  ).findings;
}

describe('crd-without-wave', () => {
  it.each([
    ['a CRD and its CR both in wave 0', [crd(), widget()], 'Widget/shop/w1 (Sync wave 0)'],
    [
      'a CRD in a later wave than its CR',
      [crd(wave('2')), widget(wave('1'))],
      'Widget/shop/w1 (Sync wave 1)',
    ],
    [
      'a CR run as a PreSync hook while the CRD is a plain resource',
      [crd(wave('-5')), widget({ 'argocd.argoproj.io/hook': 'PreSync' })],
      'Widget/shop/w1 (PreSync wave 0)',
    ],
    [
      'an unparsable CRD wave, which Argo CD reads as 0',
      [crd(wave('first')), widget()],
      'Widget/shop/w1 (Sync wave 0)',
    ],
    [
      'a CR whose sync-options name another option',
      [crd(), widget({ 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' })],
      'Widget/shop/w1 (Sync wave 0)',
    ],
  ])('fires on %s', (_name, docs, cr) => {
    const findings = check(docs);
    expect(findings).toHaveLength(1);
    expect(findings[0]?.subject).toBe('CustomResourceDefinition/widgets.example.com');
    expect(findings[0]?.evidence.customResources).toEqual([cr]);
  });

  it.each([
    ['a CRD one wave before its CR', [crd(wave('-1')), widget()], []],
    ['a CRD whose Helm hook-weight puts it first', [crd({ 'helm.sh/hook-weight': '-5' }), widget()], []],
    ['a CR in a later wave', [crd(), widget(wave('1'))], []],
    [
      'a CR annotated SkipDryRunOnMissingResource=true',
      [
        crd(),
        widget({ 'argocd.argoproj.io/sync-options': 'Validate=false, SkipDryRunOnMissingResource=true' }),
      ],
      [],
    ],
    [
      'the app-level SkipDryRunOnMissingResource=true',
      [crd(), widget()],
      ['SkipDryRunOnMissingResource=true'],
    ],
    [
      'a CR that is a Skip hook and never applied',
      [crd(), widget({ 'argocd.argoproj.io/hook': 'Skip' })],
      [],
    ],
    ['a CRD without custom resources', [crd()], []],
    ['a resource of the same kind in another group', [crd(), widget({}, 'other.io/v1')], []],
  ])('stays quiet on %s', (_name, docs, syncOptions) => {
    expect(check(docs, syncOptions)).toEqual([]);
  });

  it('names a CR of a cluster-scoped CRD without a namespace', () => {
    const findings = check([crd({}, 'Cluster'), widget()]);
    expect(findings[0]?.evidence.customResources).toEqual(['Widget/w1 (Sync wave 0)']);
  });
});
