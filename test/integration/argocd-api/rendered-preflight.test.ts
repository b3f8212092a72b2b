import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { application, externalSecret, type RenderWorld, startRenderWorld, yaml } from './harness.js';

const HELM_OUTPUT = 'sim.gitops-sync.dev/helm-output';

const files = {
  'charts/api/Chart.yaml': yaml({ apiVersion: 'v2', name: 'api', version: '1.0.0' }),
  'charts/api/templates/externalsecret.yaml':
    'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: {{ .Release.Name }}-db\n',
  // What helm template gives for the chart: the ExternalSecret asks for a property the secret lacks.
  'rendered/api.yaml': yaml(externalSecret('api-db', 'shop/db', 'passwrd')),
  'kustomize/base/kustomization.yaml': yaml({ resources: ['externalsecret.yaml'] }),
  'kustomize/base/externalsecret.yaml': yaml(externalSecret('web-db', 'shop/db', 'password')),
  // The overlay's patch moves the ExternalSecret to another key, one that does not exist.
  'kustomize/prod/kustomization.yaml': yaml({
    resources: ['../base'],
    patches: [
      {
        target: { kind: 'ExternalSecret', name: 'web-db' },
        patch: '- op: replace\n  path: /spec/data/0/remoteRef/key\n  value: shop/prod-db\n',
      },
    ],
  }),
  'values/prod.yaml': yaml({ replicas: 3 }),
};

const helmApp = (name: string) =>
  application(
    name,
    { source: { repoURL: '', path: 'charts/api', targetRevision: 'main' } },
    { [HELM_OUTPUT]: 'rendered/api.yaml' },
  );

describe('the preflight on the manifests Argo CD renders', () => {
  let world: RenderWorld;
  beforeAll(async () => {
    world = await startRenderWorld(files, [{ name: 'shop/db', string: JSON.stringify({ password: 'pw' }) }]);
  });
  afterAll(async () => {
    await world?.close();
  });

  const withRepo = (app: ReturnType<typeof application>) => {
    const spec = app.spec as { source?: Record<string, unknown>; sources?: Record<string, unknown>[] };
    if (spec.source) spec.source.repoURL = world.repoUrl;
    for (const source of spec.sources ?? []) source.repoURL = world.repoUrl;
    return app;
  };

  it('blocks a Helm app whose rendered ExternalSecret names a missing property, naming ExternalSecret, key and property', async () => {
    const match = world.addApp(withRepo(helmApp('api-helm')));
    const preflight = world.preflight();
    const verdict = await preflight.run(match, world.push());
    await preflight.close();
    expect(verdict.verdict).toBe('block');
    expect(verdict.renderedBy).toBe('argocd');
    const blocking = verdict.checks.filter((c) => c.blocking === true);
    expect(blocking).toMatchObject([
      {
        externalSecret: 'shop/api-db',
        key: 'shop/db',
        property: 'passwrd',
        outcome: 'missing-property',
        renderedBy: 'argocd',
      },
    ]);
    expect(world.argocd.requests.at(-1)).toMatchObject({
      name: 'api-helm',
      appNamespace: 'argocd',
      revision: world.sha,
      authorized: true,
    });
  });

  it('falls back to Git when the Argo CD API is down, and says so with a warn under policy block', async () => {
    const match = world.addApp(withRepo(helmApp('api-helm-down')));
    world.argocd.faults.set({ status: 503 });
    try {
      const preflight = world.preflight();
      const verdict = await preflight.run(match, world.push());
      await preflight.close();
      expect(verdict.verdict).toBe('warn');
      expect(verdict.renderedBy).toBe('git');
      expect(verdict.renderNote).toMatch(
        /Argo CD did not render this app: Argo CD API answered 503 after 3 attempts/,
      );
      expect(verdict.checks).toMatchObject([
        { outcome: 'not-rendered', renderedBy: 'git', message: expect.stringMatching(/answered 503/) },
      ]);
    } finally {
      world.argocd.faults.clear();
    }
  });

  it('warns with the reason when no Argo CD API is configured and the app is a Helm chart', async () => {
    const match = world.addApp(withRepo(helmApp('api-helm-no-api')));
    const preflight = world.preflight({ argocd: false });
    const verdict = await preflight.run(match, world.push());
    await preflight.close();
    expect(verdict).toMatchObject({ verdict: 'warn', renderedBy: 'git' });
    expect(verdict.renderNote).toMatch(/no Argo CD API is configured for cluster hub/);
    expect(verdict.checks[0]?.message).toMatch(/not rendered.*no Argo CD API is configured/);
  });

  it('checks a Kustomize overlay on the key its patch sets, not the base key', async () => {
    const app = withRepo(
      application('web-prod', { source: { repoURL: '', path: 'kustomize/prod', targetRevision: 'main' } }),
    );
    const match = world.addApp(app);
    const preflight = world.preflight();
    const rendered = await preflight.run(match, world.push());
    await preflight.close();
    expect(rendered.renderedBy).toBe('argocd');
    expect(rendered.checks).toMatchObject([
      { externalSecret: 'shop/web-db', key: 'shop/prod-db', outcome: 'missing-secret', blocking: true },
    ]);
    // Git alone reads the base file and misses the patch: the same app passes there.
    const fromGit = world.preflight({ argocd: false });
    const unpatched = await fromGit.run(match, world.push());
    await fromGit.close();
    expect(unpatched.checks).toMatchObject([{ key: 'shop/db', outcome: 'ok', renderedBy: 'git' }]);
  });

  it('asks for each source of a multi-source app by its position and the pushed commit', async () => {
    const app = withRepo(
      application(
        'api-multi',
        {
          sources: [
            {
              repoURL: '',
              path: 'charts/api',
              targetRevision: 'main',
              helm: { valueFiles: ['$values/values/prod.yaml'] },
            },
            { repoURL: '', targetRevision: 'main', ref: 'values' },
          ],
        },
        { [HELM_OUTPUT]: '1=rendered/api.yaml' },
      ),
    );
    const match = world.addApp(app);
    const preflight = world.preflight();
    const verdict = await preflight.run(match, world.push());
    await preflight.close();
    expect(world.argocd.requests.at(-1)).toMatchObject({
      name: 'api-multi',
      sourcePositions: ['1', '2'],
      revisions: [world.sha, world.sha],
    });
    expect(verdict).toMatchObject({ verdict: 'block', renderedBy: 'argocd' });
  });

  it('asks Argo CD once per app and revision in one push, however often the preflight runs', async () => {
    const match = world.addApp(withRepo(helmApp('api-cached')));
    const preflight = world.preflight();
    const before = world.argocd.requests.length;
    await Promise.all([preflight.run(match, world.push()), preflight.run(match, world.push())]);
    await preflight.run(match, world.push());
    await preflight.close();
    expect(world.argocd.requests.length - before).toBe(1);
  });

  it('falls back on a token Argo CD refuses, naming the status but never the token', async () => {
    const match = world.addApp(withRepo(helmApp('api-helm-401')));
    world.argocd.faults.set({ status: 401, times: 1 });
    const preflight = world.preflight();
    const verdict = await preflight.run(match, world.push());
    await preflight.close();
    expect(verdict.renderNote).toMatch(/answered 401: the token was not accepted/);
    expect(verdict.renderedBy).toBe('git');
    expect(JSON.stringify(verdict)).not.toContain('argocd-test-token');
  });
});
