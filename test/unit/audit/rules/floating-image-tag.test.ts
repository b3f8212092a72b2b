import { describe, expect, it } from 'vitest';
import { floatingImageTagRule } from '../../../../lib/audit/rules/floating-image-tag.js';
import { auditApp } from '../../../../lib/audit/run-audit.js';
import { input, manifests } from '../fixture.js';

const podSpec = (image: string) => ({ containers: [{ name: 'app', image }] });
const workloads = (image: string): [string, Record<string, unknown>][] => [
  [
    'Deployment',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: { template: { spec: podSpec(image) } },
    },
  ],
  [
    'StatefulSet',
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'w' },
      spec: { template: { spec: podSpec(image) } },
    },
  ],
  [
    'DaemonSet',
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'w' },
      spec: { template: { spec: podSpec(image) } },
    },
  ],
  [
    'ReplicaSet',
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'w' },
      spec: { template: { spec: podSpec(image) } },
    },
  ],
  [
    'Job',
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'w' },
      spec: { template: { spec: podSpec(image) } },
    },
  ],
  [
    'CronJob',
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'w' },
      spec: { jobTemplate: { spec: { template: { spec: podSpec(image) } } } },
    },
  ],
  ['Pod', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w' }, spec: podSpec(image) }],
];

function check(doc: Record<string, unknown>) {
  return auditApp(input({ manifests: manifests(doc) }), [floatingImageTagRule]).findings;
}

describe('floating-image-tag', () => {
  it.each(workloads('nginx:latest'))('fires on a %s running nginx:latest', (kind, doc) => {
    expect(check(doc).map((f) => f.subject)).toEqual([`${kind}/shop/w`]);
  });

  it.each(workloads('nginx:1.27.1'))('stays quiet on a %s running nginx:1.27.1', (_kind, doc) => {
    expect(check(doc)).toEqual([]);
  });

  it('ignores the pod template of kinds that are not workloads', () => {
    const doc = {
      apiVersion: 'example.com/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: { template: { spec: podSpec('nginx') } },
    };
    expect(check(doc)).toEqual([]);
  });

  it('skips containers without an image instead of failing', () => {
    const doc = workloads('nginx:1.0')[0]?.[1] ?? {};
    const broken = { ...doc, spec: { template: { spec: { containers: [{ name: 'a' }, 'junk', null] } } } };
    expect(check(broken)).toEqual([]);
  });
});
