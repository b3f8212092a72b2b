import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgoCdApis, createRenderCache, createRenderMemo } from '../../../lib/argocd-api/renderers.js';
import { auditApp } from '../../../lib/audit/run-audit.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createManifestReader } from '../../../lib/reconcile/app-manifests.js';
import { trackApplication } from '../../../lib/reconcile/tracked-app.js';
import { ARGO_TOKEN, application, type RenderWorld, startRenderWorld, yaml } from './harness.js';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 3,
    template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/example/web:1.0.0' }] } },
  },
};
const hpa = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 2,
    maxReplicas: 6,
  },
};

describe('the audit on the objects Argo CD renders at the synced revision', () => {
  let world: RenderWorld;
  beforeAll(async () => {
    world = await startRenderWorld(
      {
        'charts/web/Chart.yaml': yaml({ apiVersion: 'v2', name: 'web', version: '1.0.0' }),
        'charts/web/templates/all.yaml': 'kind: Deployment\nspec:\n  replicas: {{ .Values.replicas }}\n',
        'rendered/web.yaml': yaml(deployment, hpa),
        'kustomize/kustomization.yaml': yaml({ resources: ['all.yaml'] }),
        'kustomize/all.yaml': yaml(deployment, hpa),
      },
      [],
    );
  });
  afterAll(async () => {
    await world?.close();
  });

  const audit = async (withArgo: boolean, name = `web-${withArgo}`, path = 'charts/web') => {
    const raw = {
      ...application(
        'web',
        { source: { repoURL: world.repoUrl, path, targetRevision: 'main' } },
        { 'sim.gitops-sync.dev/helm-output': 'rendered/web.yaml' },
      ),
      status: { sync: { status: 'Synced', revision: world.sha } },
    };
    const named = { ...raw, metadata: { ...raw.metadata, name } };
    world.store.create(APPLICATIONS, named);
    const tracked = trackApplication('hub', named);
    if (!tracked.ok) throw new Error(tracked.reason);
    const apis = createArgoCdApis(withArgo ? world.fleet.clusters : [], {
      secrets: { getSecretString: async () => ARGO_TOKEN },
    });
    const reader = createManifestReader({
      git: world.reader(),
      credentials: async () => undefined,
      repositories: { repository: () => ({ url: world.repoUrl }), resolve: () => ({ kind: 'unlisted' }) },
      renderer: createRenderCache(apis),
    });
    const { manifests } = await reader(tracked.value);
    return auditApp({
      cluster: 'hub',
      application: named,
      ...(manifests === undefined ? {} : { manifests }),
      now: new Date(),
    });
  };

  it('finds the HPA-vs-replicas fight in a Helm chart, and says Argo CD rendered the objects', async () => {
    const result = await audit(true);
    const finding = result.findings.find((f) => f.rule === 'hpa-replicas-not-ignored');
    expect(finding).toMatchObject({
      subject: 'Deployment/shop/web',
      evidence: { 'spec.replicas': 3, renderedBy: 'argocd', path: 'argocd:manifests[0]' },
    });
    expect(world.argocd.requests.at(-1)).toMatchObject({ name: 'web-true', revision: world.sha });
  });

  it('skips the manifest rules of the same chart read from Git, saying why', async () => {
    const result = await audit(false);
    expect(result.findings.some((f) => f.rule === 'hpa-replicas-not-ignored')).toBe(false);
    expect(result.notes).toContainEqual(
      expect.objectContaining({
        kind: 'skipped',
        rule: 'hpa-replicas-not-ignored',
        message: expect.stringMatching(/not rendered here/),
      }),
    );
  });

  it('reuses a render across passes while the spec and revisions hold, and asks again when the spec changes', async () => {
    const apis = createArgoCdApis(world.fleet.clusters, {
      secrets: { getSecretString: async () => ARGO_TOKEN },
    });
    const memo = createRenderMemo();
    const query = { name: 'web-true', appNamespace: 'argocd', revision: world.sha };
    const before = world.argocd.requests.length;
    for (const pass of [1, 2]) {
      const outcome = await createRenderCache(apis, undefined, memo).render('hub', query, '{"v":1}');
      expect(outcome.ok, `pass ${pass}`).toBe(true);
    }
    expect(world.argocd.requests.length - before).toBe(1);
    await createRenderCache(apis, undefined, memo).render('hub', query, '{"v":2}');
    expect(world.argocd.requests.length - before).toBe(2);
  });

  it('holds the manifest findings when Git stands in for a failed render, saying why', async () => {
    world.argocd.faults.set({ status: 503 });
    try {
      const result = await audit(true, 'web-down');
      expect(result.notes).toContainEqual(
        expect.objectContaining({
          kind: 'skipped',
          rule: 'hpa-replicas-not-ignored',
          message: expect.stringMatching(
            /not rendered here.*Argo CD did not render this app: Argo CD API answered 503/,
          ),
        }),
      );
    } finally {
      world.argocd.faults.clear();
    }
  });

  it('keeps what Git still finds for a Kustomize app when the render fails, and marks the rest partial', async () => {
    world.argocd.faults.set({ status: 503 });
    try {
      const result = await audit(true, 'web-kustomize-down', 'kustomize');
      expect(result.findings.find((f) => f.rule === 'hpa-replicas-not-ignored')?.evidence).toMatchObject({
        renderedBy: 'git',
        path: 'kustomize/all.yaml',
      });
      expect(result.notes).toContainEqual(
        expect.objectContaining({
          kind: 'partial',
          rule: 'hpa-replicas-not-ignored',
          message: expect.stringMatching(/Argo CD API answered 503.*read from Git instead/),
        }),
      );
    } finally {
      world.argocd.faults.clear();
    }
  });
});
