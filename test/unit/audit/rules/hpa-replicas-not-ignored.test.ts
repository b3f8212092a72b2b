import { describe, expect, it } from 'vitest';
import { hpaReplicasNotIgnoredRule } from '../../../../lib/audit/rules/hpa-replicas-not-ignored.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { application, input, manifests } from '../fixture.js';

const deployment = (replicas?: number, kind = 'Deployment') => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'web' },
  spec: {
    ...(replicas === undefined ? {} : { replicas }),
    template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/org/web:1.0.0' }] } },
  },
});
const hpa = (target: object, namespace?: string) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', ...(namespace === undefined ? {} : { namespace }) },
  spec: { scaleTargetRef: target, minReplicas: 2, maxReplicas: 10 },
});
const scaledObject = (target: object) => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: 'web' },
  spec: { scaleTargetRef: target, triggers: [{ type: 'cpu', metadata: { value: '60' } }] },
});
const toWeb = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const replicasPointer = { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] };
const respect = ['RespectIgnoreDifferences=true'];

function check(options: {
  docs: readonly Record<string, unknown>[];
  spec?: object;
  live?: readonly unknown[];
  system?: readonly unknown[];
}) {
  return auditApp(
    input({
      application: application({ spec: options.spec ?? {} }),
      manifests: manifests(...options.docs),
      ...(options.live === undefined ? {} : { liveObjects: options.live }),
      ...(options.system === undefined ? {} : { systemIgnoreDifferences: options.system }),
    }),
    [hpaReplicasNotIgnoredRule],
  ).findings;
}

describe('hpa-replicas-not-ignored', () => {
  it.each([
    [
      'an HPA on a Deployment whose replicas Git sets, nothing ignored',
      { docs: [deployment(2), hpa(toWeb)] },
      'medium',
    ],
    [
      'the same with selfHeal, where the two fight on every pass',
      { docs: [deployment(2), hpa(toWeb)], spec: { syncPolicy: { automated: { selfHeal: true } } } },
      'high',
    ],
    [
      'ignoreDifferences covers replicas but syncs still apply them (no RespectIgnoreDifferences)',
      { docs: [deployment(2), hpa(toWeb)], spec: { ignoreDifferences: [replicasPointer] } },
      'low',
    ],
    [
      'an ignoreDifferences entry for another Deployment name',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: { ignoreDifferences: [{ ...replicasPointer, name: 'api' }] },
      },
      'medium',
    ],
    [
      'an ignoreDifferences entry for another namespace',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: { ignoreDifferences: [{ ...replicasPointer, namespace: 'other' }] },
      },
      'medium',
    ],
    [
      'a jsonPointer on a different field',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: { ignoreDifferences: [{ ...replicasPointer, jsonPointers: ['/spec/template'] }] },
      },
      'medium',
    ],
    [
      'a KEDA ScaledObject without kind, which KEDA reads as a Deployment',
      { docs: [deployment(1), scaledObject({ name: 'web' })] },
      'medium',
    ],
    [
      'a KEDA ScaledObject on a StatefulSet',
      { docs: [deployment(1, 'StatefulSet'), scaledObject({ kind: 'StatefulSet', name: 'web' })] },
      'medium',
    ],
    [
      'a live HPA on the destination cluster that Git does not hold',
      { docs: [deployment(3)], live: [hpa(toWeb, 'shop')] },
      'medium',
    ],
    [
      'an autoscaling/v1 HPA whose scaleTargetRef has no apiVersion',
      { docs: [deployment(3), hpa({ kind: 'Deployment', name: 'web' })] },
      'medium',
    ],
  ])('fires on %s', (_name, options, severity) => {
    const findings = check(options);
    expect(findings.map((f) => [f.subject, f.severity])).toEqual([
      [expect.stringMatching(/\/shop\/web$/), severity],
    ]);
  });

  it.each([
    [
      'jsonPointers /spec/replicas with RespectIgnoreDifferences=true',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: { ignoreDifferences: [replicasPointer], syncPolicy: { syncOptions: respect } },
      },
    ],
    [
      'jqPathExpressions .spec.replicas with a glob group and RespectIgnoreDifferences=true',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: {
          ignoreDifferences: [{ group: '*', kind: 'Deployment', jqPathExpressions: ['.spec.replicas'] }],
          syncPolicy: { syncOptions: respect },
        },
      },
    ],
    [
      'managedFieldsManagers kube-controller-manager with RespectIgnoreDifferences=true',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: {
          ignoreDifferences: [
            { group: 'apps', kind: '*', managedFieldsManagers: ['kube-controller-manager'] },
          ],
          syncPolicy: { syncOptions: respect },
        },
      },
    ],
    [
      'a system-level ignoreDifferences entry from argocd-cm with RespectIgnoreDifferences=true',
      {
        docs: [deployment(2), hpa(toWeb)],
        spec: { syncPolicy: { syncOptions: respect } },
        system: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
      },
    ],
    [
      'an HPA on a Deployment this app does not hold',
      { docs: [deployment(2), hpa({ ...toWeb, name: 'api' })] },
    ],
    [
      'an HPA on an Argo Rollout of the same name',
      { docs: [deployment(2), hpa({ ...toWeb, kind: 'Rollout' })] },
    ],
    ['a live HPA in another namespace', { docs: [deployment(2)], live: [hpa(toWeb, 'other')] }],
    ['a Deployment with replicas but no autoscaler', { docs: [deployment(2)] }],
    [
      'an autoscaled Deployment without replicas in Git',
      { docs: [deployment(), scaledObject({ name: 'web' })] },
    ],
  ])('stays quiet on %s', (_name, options) => {
    expect(check(options)).toEqual([]);
  });
});
