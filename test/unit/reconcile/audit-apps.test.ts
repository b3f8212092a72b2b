import { describe, expect, it } from 'vitest';
import { DEFAULT_AUDIT_OPTIONS } from '../../../lib/audit/types.js';
import type { AppManifestsRead } from '../../../lib/reconcile/app-manifests.js';
import { type AuditAppsDeps, auditApps } from '../../../lib/reconcile/audit-apps.js';
import type { LiveRead } from '../../../lib/reconcile/read-clusters.js';
import { trackApplication } from '../../../lib/reconcile/tracked-app.js';

const NOW = new Date('2026-09-01T10:00:00Z');
const HEAD = 'a'.repeat(40);

const raw = {
  metadata: { name: 'web', namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
  spec: {
    project: 'shop',
    source: { repoURL: 'https://git.example/org/gitops', path: 'apps/web', targetRevision: 'main' },
    destination: { name: 'spoke', namespace: 'web' },
    syncPolicy: { automated: { prune: true, selfHeal: true, allowEmpty: false } },
  },
  status: { sync: { status: 'Synced', revision: HEAD }, health: { status: 'Healthy' } },
};
const tracked = (() => {
  const result = trackApplication('hub', raw);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
})();

const deployment = {
  path: 'apps/web/deploy.yaml',
  doc: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/org/web:1.0.0' }] } },
    },
  },
};
const hpa = (namespace: string) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
});

function deps(live: LiveRead | undefined, overrides: Partial<AuditAppsDeps> = {}): AuditAppsDeps {
  return {
    clusters: [
      { name: 'hub', server: 'https://hub.example' },
      { name: 'spoke', server: 'https://spoke.example' },
    ],
    manifests: async (): Promise<AppManifestsRead> => ({ manifests: { docs: [deployment] }, problems: [] }),
    resolve: () => ({
      kind: 'resolved',
      repo: { url: 'https://git.example/org/gitops' },
      repoKey: 'git.example/org/gitops',
      resolved: { found: true, sha: HEAD, ref: 'refs/heads/main', via: 'ref' },
    }),
    live: new Map(live === undefined ? [] : [['spoke', live]]),
    clock: { now: () => NOW },
    now: NOW,
    deadline: NOW.getTime() + 60_000,
    concurrency: 2,
    audit: DEFAULT_AUDIT_OPTIONS,
    ...overrides,
  };
}

const target = { cluster: 'hub', raw, tracked, history: [] };

describe('auditApps', () => {
  it('passes the live autoscalers of the destination namespace to the rules', async () => {
    const live: LiveRead = {
      ok: true,
      byNamespace: new Map([
        ['web', [hpa('web')]],
        ['other', [hpa('other')]],
      ]),
    };
    const result = await auditApps([target], deps(live));
    expect(result.findings.map((f) => [f.rule, f.evidence.scaledBy])).toEqual([
      ['hpa-replicas-not-ignored', ['HorizontalPodAutoscaler/web/web (live)']],
    ]);
    expect(result.audited).toBe(1);
  });

  it('holds the autoscaler rule when the destination could not be read', async () => {
    const result = await auditApps([target], deps({ ok: false, error: 'HTTP 403' }));
    expect(result.findings).toEqual([]);
    expect(result.notes).toContainEqual(
      expect.objectContaining({ kind: 'partial', rule: 'hpa-replicas-not-ignored', app: 'web' }),
    );
  });

  it('skips every rule of an app once the time budget is spent, so its findings are held', async () => {
    const result = await auditApps([target], deps(undefined, { deadline: NOW.getTime() }));
    expect(result).toMatchObject({ findings: [], audited: 0, outOfTime: 1 });
    expect(result.notes).toEqual([expect.objectContaining({ kind: 'skipped', rule: '*', app: 'web' })]);
  });

  it('records an app whose inputs could not be gathered as skipped instead of failing the pass', async () => {
    const result = await auditApps(
      [target],
      deps(undefined, {
        manifests: async () => {
          throw new Error('disk full');
        },
      }),
    );
    expect(result.notes).toEqual([
      expect.objectContaining({ kind: 'skipped', rule: '*', message: 'not audited: disk full' }),
    ]);
  });
});
