import { describe, expect, it } from 'vitest';
import type { AuditRule } from '../../../lib/audit/rule.js';
import { floatingImageTagRule } from '../../../lib/audit/rules/floating-image-tag.js';
import { missingFinalizerRule } from '../../../lib/audit/rules/missing-finalizer.js';
import { operationStuckRule } from '../../../lib/audit/rules/operation-stuck.js';
import { AUDIT_RULES } from '../../../lib/audit/rules.js';
import { auditApp } from '../../../lib/audit/run-audit.js';
import { application, input, loadFixture, manifests } from './fixture.js';

const throwing: AuditRule = {
  id: 'boom',
  severity: 'high',
  title: 'always throws',
  docs: 'none',
  needs: [],
  check() {
    throw new TypeError("Cannot read properties of undefined (reading 'spec')");
  },
};
const latest = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'a', image: 'a' }] },
};

describe('auditApp', () => {
  it('keeps running the other rules when one throws, and reports the failure as a finding and a note', () => {
    const result = auditApp(input(), [throwing, missingFinalizerRule]);
    expect(result.findings.map((f) => [f.rule, f.subject, f.severity])).toEqual([
      ['audit-rule-error', 'boom', 'info'],
      ['missing-finalizer', undefined, 'low'],
    ]);
    expect(result.notes).toEqual([
      {
        kind: 'rule-error',
        rule: 'boom',
        cluster: 'hub-eu',
        namespace: 'argocd',
        app: 'web',
        message: expect.stringContaining('Cannot read'),
      },
    ]);
  });

  it.each([
    ['were not read', undefined, 'manifests were not read'],
    ['are a Helm chart that was not rendered', { docs: [], notRendered: true }, 'not rendered'],
  ])('skips the rules that need manifests, with a note, when the manifests %s', (_name, given, reason) => {
    const result = auditApp(input(given === undefined ? {} : { manifests: given }), [
      floatingImageTagRule,
      missingFinalizerRule,
    ]);
    expect(result.findings.map((f) => f.rule)).toEqual(['missing-finalizer']);
    expect(result.notes).toEqual([
      expect.objectContaining({
        kind: 'skipped',
        rule: 'floating-image-tag',
        message: expect.stringContaining(reason),
      }),
    ]);
    expect(JSON.stringify(result.notes)).not.toContain('evidence');
  });

  it('reports what it found in manifests cut at a limit, and notes that the rest was not seen', () => {
    const result = auditApp(input({ manifests: { ...manifests(latest), limitReached: true } }), [
      floatingImageTagRule,
    ]);
    expect(result.findings.map((f) => f.subject)).toEqual(['Pod/shop/p']);
    expect(result.notes.map((n) => [n.kind, n.rule])).toEqual([['partial', 'floating-image-tag']]);
  });

  it.each([
    ['a string', 'not an app'],
    ['null', null],
    ['an object without metadata.name', { kind: 'Application', metadata: { namespace: 'argocd' } }],
  ])('audits nothing and says so when the Application is %s', (_name, raw) => {
    const result = auditApp(input({ application: raw }), AUDIT_RULES);
    expect(result.findings).toEqual([]);
    expect(result.notes.map((n) => [n.kind, n.rule])).toEqual([['skipped', '*']]);
  });

  it('ignores documents that are not Kubernetes objects and audits the rest', () => {
    const docs = manifests(latest);
    const withJunk = {
      docs: [
        ...docs.docs,
        { path: 'values.yaml', doc: { replicaCount: 2 } },
        { path: 'x.yaml', doc: 'text' },
        { path: 'y.yaml', doc: [1] },
        { path: 'z.yaml', doc: null },
      ],
    };
    const result = auditApp(input({ manifests: withJunk }), [floatingImageTagRule]);
    expect(result.findings.map((f) => f.subject)).toEqual(['Pod/shop/p']);
    expect(result.notes).toEqual([
      expect.objectContaining({
        kind: 'ignored-objects',
        rule: '*',
        message: expect.stringContaining('3 document(s)'),
      }),
    ]);
  });

  it('never throws on malformed fields anywhere in the Application, manifests, history or live objects', () => {
    const odd = [null, 'x', 7, [], {}, [null], { a: null }, true];
    for (const value of odd) {
      const app = application({
        metadata: { finalizers: value, annotations: value },
        spec: {
          syncPolicy: value,
          ignoreDifferences: value,
          destination: value,
          sources: value,
          project: value,
        },
        status: { sync: value, health: value, operationState: value, resources: value },
      });
      const docs = [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'd', annotations: value },
          spec: value,
        },
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'h' },
          spec: { scaleTargetRef: value },
        },
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'c' },
          spec: value,
        },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: value, stringData: value },
        {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Application',
          metadata: { name: 'a', finalizers: value },
        },
      ];
      const result = auditApp(
        input({
          application: app,
          manifests: manifests(...docs),
          history: [{ at: 'x' }, value as never],
          liveObjects: [value],
          appProject: value,
          systemIgnoreDifferences: [value],
          currentRevision: 'abc',
        }),
        AUDIT_RULES,
      );
      expect(result.findings.filter((f) => f.rule === 'audit-rule-error')).toEqual([]);
      expect(result.notes.filter((n) => n.kind === 'rule-error')).toEqual([]);
    }
  });

  it('strips credentials from URLs in messages and evidence', () => {
    const app = application({
      status: {
        operationState: {
          phase: 'Running',
          startedAt: '2026-08-01T10:00:00Z',
          message: 'rpc error: failed to fetch https://ci-bot:ghp_FAKE0123456789@github.com/org/gitops.git',
        },
      },
    });
    const text = JSON.stringify(auditApp(input({ application: app }), [operationStuckRule]));
    expect(text).not.toContain('ghp_FAKE0123456789');
    expect(text).toContain('https://***@github.com/org/gitops.git');
  });

  it('keeps one draft per identity when a rule repeats itself', () => {
    const twice: AuditRule = {
      ...missingFinalizerRule,
      check: (c) => [...missingFinalizerRule.check(c), ...missingFinalizerRule.check(c)],
    };
    expect(auditApp(input(), [twice]).findings).toHaveLength(1);
  });

  it('applies option overrides over the defaults', () => {
    const started = { operationState: { phase: 'Running', startedAt: '2026-08-01T11:50:00Z' } };
    const run = (operationStuckAfterMs?: number) =>
      auditApp(
        input({ application: application({ status: started }) }),
        [operationStuckRule],
        operationStuckAfterMs === undefined ? {} : { operationStuckAfterMs },
      ).findings.length;
    expect([run(), run(5 * 60_000)]).toEqual([0, 1]);
  });

  it('runs every registered rule on a fixture app of findings without touching anything else', () => {
    const result = auditApp(loadFixture('good-app'));
    expect(result).toEqual({ findings: [], notes: [] });
  });
});
