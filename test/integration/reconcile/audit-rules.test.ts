import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedObject } from '../../../infra/simulator/default-fleet.js';
import type { Finding } from '../../../lib/audit/types.js';
import { APPLICATIONS, HORIZONTAL_POD_AUTOSCALERS } from '../../../lib/kubernetes/resources.js';
import type { ReconcileReport } from '../../../lib/reconcile/report.js';
import { type ReconcileWorld, startReconcileWorld } from './harness.js';

const MINUTE = 60_000;
const START = new Date('2026-09-01T10:00:00Z');
const at = (minutesAgo: number) => new Date(START.getTime() - minutesAgo * MINUTE).toISOString();

const pinned = (name: string, extra = '') =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n${extra}  template:\n    spec:\n      containers: [{ name: app, image: "ghcr.io/org/${name}:1.0.0" }]\n`;

/** Each app breaks one rule (its directory or its object says how); `good` breaks none. */
const FILES: Record<string, string> = {
  'apps/good/deploy.yaml': pinned('good'),
  'apps/children/child.yaml':
    'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: { name: child, namespace: argocd }\nspec: { project: shop }\n',
  'apps/hpa/deploy.yaml': pinned('web', '  replicas: 2\n'),
  'apps/crd/crd.yaml':
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: { name: widgets.example.com }\nspec:\n  group: example.com\n  names: { kind: Widget, plural: widgets }\n  scope: Namespaced\n',
  'apps/crd/widget.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w }\nspec: {}\n',
  'apps/secret/secret.yaml':
    'apiVersion: v1\nkind: Secret\nmetadata: { name: db }\ndata: { password: c2VjcmV0 }\n',
  'apps/latest/deploy.yaml':
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: latest }\nspec:\n  template:\n    spec:\n      containers: [{ name: app, image: "nginx:latest" }]\n',
};

interface AppSpec {
  readonly path?: string;
  readonly project?: string;
  readonly finalizer?: boolean;
  readonly automated?: Record<string, unknown>;
  readonly status?: (head: string) => Record<string, unknown>;
}

const synced = (head: string, extra: Record<string, unknown> = {}) => ({
  sync: { status: 'Synced', revision: head },
  health: { status: 'Healthy' },
  ...extra,
});

/** App name → how it is built, and the one rule it must (only) break. */
const APPS: Record<string, AppSpec & { readonly rule?: string }> = {
  good: {},
  drift: {
    rule: 'drift',
    status: (head) => ({ ...synced(head), sync: { status: 'OutOfSync', revision: head } }),
  },
  degraded: {
    rule: 'degraded',
    status: (head) => ({ ...synced(head), health: { status: 'Degraded', message: 'crash loop' } }),
  },
  stuck: {
    rule: 'operation-stuck',
    status: (head) =>
      synced(head, { operationState: { phase: 'Running', startedAt: at(40), message: 'waiting for hook' } }),
  },
  thrash: {
    rule: 'selfheal-thrash',
    status: (head) =>
      synced(head, {
        history: [50, 35, 20, 5].map((ago, id) => ({
          id,
          revision: head,
          deployStartedAt: at(ago + 0.5),
          deployedAt: at(ago),
        })),
      }),
  },
  prune: { rule: 'prune-without-allow-empty', automated: { prune: true, selfHeal: true } },
  children: { rule: 'app-of-apps-prune', path: 'apps/children' },
  hpa: { rule: 'hpa-replicas-not-ignored', path: 'apps/hpa' },
  crd: { rule: 'crd-without-wave', path: 'apps/crd' },
  secret: { rule: 'plaintext-secret', path: 'apps/secret' },
  latest: { rule: 'floating-image-tag', path: 'apps/latest' },
  orphaning: { rule: 'missing-finalizer', finalizer: false },
  defaulted: { rule: 'default-project-or-wildcard', project: 'default' },
};

function seed(name: string, spec: AppSpec, url: string, head: string): SeedObject {
  return {
    resource: APPLICATIONS,
    object: {
      metadata: {
        name,
        namespace: 'argocd',
        ...(spec.finalizer === false ? {} : { finalizers: ['resources-finalizer.argocd.argoproj.io'] }),
      },
      spec: {
        project: spec.project ?? 'shop',
        source: { repoURL: url, path: spec.path ?? 'apps/good', targetRevision: 'main' },
        destination: { name: 'spoke', namespace: name },
        syncPolicy: { automated: spec.automated ?? { prune: true, selfHeal: true, allowEmpty: false } },
      },
      ...(spec.status === undefined ? {} : { status: spec.status(head) }),
    },
  };
}

describe('the audit of a pass: every checklist rule against simulated clusters and a real Git server', () => {
  let world: ReconcileWorld;
  let report: ReconcileReport;
  let open: Finding[];
  let firstPass: Finding[];

  beforeAll(async () => {
    world = await startReconcileWorld({
      start: START,
      repos: { gitops: { files: FILES } },
      clusters: [{ name: 'hub', argocd: { namespace: 'argocd' } }, { name: 'spoke' }],
      objects: (urls, heads) => ({
        hub: Object.entries(APPS).map(([name, spec]) =>
          seed(name, spec, urls.gitops ?? '', heads.gitops ?? ''),
        ),
        spoke: [
          {
            resource: HORIZONTAL_POD_AUTOSCALERS,
            object: {
              metadata: { name: 'web', namespace: 'hpa' },
              spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
            },
          },
        ],
      }),
    });
    await world.pass();
    firstPass = await world.findings.loadOpen();
    // Drift needs OutOfSync observed for longer than its grace (2 min) at the current revision.
    world.clock.advance(3 * MINUTE);
    report = await world.pass();
    open = await world.findings.loadOpen();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('reads every app and audits each one', () => {
    expect(report.applications).toBe(Object.keys(APPS).length);
    expect(report.clusters).toEqual({ read: ['hub'], unread: [] });
    expect(report.skipped).toMatchObject({ notAudited: 0, invalidApplications: [], liveObjects: [] });
  });

  it.each(
    Object.entries(APPS).flatMap(([name, spec]) =>
      spec.rule === undefined ? [] : [[spec.rule, name] as const],
    ),
  )('rule %s fires on the app that breaks it (%s) and on no other', (rule, name) => {
    const rules = open.filter((f) => f.app === name).map((f) => f.rule);
    expect(rules).toEqual([rule]);
    expect(open.filter((f) => f.rule === rule).map((f) => f.app)).toEqual([name]);
  });

  it('reports drift only once OutOfSync has lasted past its grace, by the observations of passes', () => {
    expect(firstPass.filter((f) => f.rule === 'drift')).toEqual([]);
    expect(open.find((f) => f.rule === 'drift')?.evidence).toMatchObject({
      outOfSyncSince: START.toISOString(),
    });
  });

  it('stays quiet on the app that breaks none', () => {
    expect(open.filter((f) => f.app === 'good')).toEqual([]);
  });

  it('finds the autoscaler on the destination cluster, not in Git', () => {
    const finding = open.find((f) => f.rule === 'hpa-replicas-not-ignored');
    expect(finding?.evidence).toMatchObject({ scaledBy: ['HorizontalPodAutoscaler/hpa/web (live)'] });
  });

  it('names secret keys as evidence, never their values', () => {
    const finding = open.find((f) => f.rule === 'plaintext-secret');
    expect(finding?.evidence).toMatchObject({ dataKeys: ['password'] });
    expect(JSON.stringify(finding)).not.toContain('c2VjcmV0');
  });
});
