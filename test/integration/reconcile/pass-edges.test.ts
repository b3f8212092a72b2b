import { rename } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareRepoPath, commitFiles } from '../../../infra/local/git-repos.js';
import type { Finding } from '../../../lib/audit/types.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { type ReconcileWorld, startReconcileWorld } from './harness.js';

const MINUTE = 60_000;
const FINALIZER = 'resources-finalizer.argocd.argoproj.io';
const SECRET = 'apiVersion: v1\nkind: Secret\nmetadata: { name: db }\nstringData: { password: hunter2 }\n';
const DEPLOY =
  'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  template:\n    spec:\n      containers: [{ name: web, image: "ghcr.io/org/web:1.0.0" }]\n';

const app = (name: string, spec: Record<string, unknown>, finalizers: string[] = [FINALIZER]) => ({
  resource: APPLICATIONS,
  object: {
    metadata: { name, namespace: 'argocd', finalizers },
    spec: {
      project: 'shop',
      destination: { name: 'in-cluster', namespace: name },
      syncPolicy: { automated: { prune: true, selfHeal: true, allowEmpty: false } },
      ...spec,
    },
  },
});

describe('a pass at the edges: multi-source apps, unlisted and failing repositories, bad objects, no time', () => {
  let world: ReconcileWorld;
  const openRules = async (name: string): Promise<string[]> =>
    (await world.findings.loadOpen())
      .filter((f: Finding) => f.app === name)
      .map((f) => f.rule)
      .sort();

  beforeAll(async () => {
    world = await startReconcileWorld({
      repos: {
        gitops: { files: { 'apps/web/deploy.yaml': DEPLOY, 'apps/secret/secret.yaml': SECRET } },
        values: { files: { 'web/values.yaml': 'replicas: 2\n' } },
        other: { files: { 'apps/x/deploy.yaml': DEPLOY } },
      },
      clusters: [{ name: 'hub', argocd: { namespace: 'argocd' } }],
      objects: (urls) => ({
        hub: [
          app('multi', {
            sources: [
              { repoURL: urls.gitops, path: 'apps/web', targetRevision: 'main' },
              { repoURL: urls.values, targetRevision: 'main', ref: 'values' },
            ],
          }),
          app('secret', { source: { repoURL: urls.gitops, path: 'apps/secret', targetRevision: 'main' } }),
          app('foreign', { source: { repoURL: urls.other, path: 'apps/x', targetRevision: 'main' } }, []),
          app('broken', {}, []),
        ],
      }),
      repositories: (urls) => [{ url: urls.gitops ?? '' }, { url: urls.values ?? '' }],
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('counts apps of a repository missing from the fleet file and never contacts it', async () => {
    world.git.server.resetRequests();
    const report = await world.pass();
    expect(report.skipped.unlistedRepositoryApps).toBe(1);
    expect(report.repositories.read.map((r) => r.split('/').pop()).sort()).toEqual(['gitops', 'values']);
    expect(world.git.server.requests.filter((r) => r.path.includes('other.git'))).toEqual([]);
    // What needs no Git is still audited.
    expect(await openRules('foreign')).toEqual(['missing-finalizer']);
  });

  it('reports an Application that does not parse, and audits it for what it can', async () => {
    const report = await world.pass();
    expect(report.skipped.invalidApplications).toEqual([
      { cluster: 'hub', namespace: 'argocd', name: 'broken', reason: 'spec has no source' },
    ]);
    // The simulated Argo CD reports an app without a source as health Missing; that it cannot be read is
    // a finding of its own, so no push silently passes it by.
    expect(await openRules('broken')).toEqual(['degraded', 'missing-finalizer', 'unreadable-object']);
  });

  it('matches a multi-source app per source: a push to its values repository is enqueued with that source as before', async () => {
    const status = world.sim.servers.get('hub')?.store.get(APPLICATIONS, 'argocd', 'multi')?.status as {
      sync: { revisions: string[] };
    };
    const pushed = await commitFiles(world.git.root, 'values', {
      changes: { 'web/values.yaml': 'replicas: 3\n' },
      message: 'scale',
    });
    const report = await world.pass({ graceSeconds: 0 });
    expect(report.missedWebhooks).toEqual([
      expect.objectContaining({
        repo: expect.stringMatching(/\/values$/),
        sha: pushed.after,
        action: 'enqueued',
      }),
    ]);
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.event).toMatchObject({ before: status.sync.revisions[1], after: pushed.after });
    expect(world.sent[0]?.event.repo.fullName).toBe('values');
  });

  it('reports a repository whose refs cannot be read and keeps the findings that needed it open', async () => {
    expect(await openRules('secret')).toEqual(['plaintext-secret']);
    const path = bareRepoPath(world.git.root, 'gitops');
    await rename(path, `${path}.away`);
    try {
      world.clock.advance(5 * MINUTE);
      const report = await world.pass();
      expect(report.repositories.failed).toEqual([
        { repo: expect.stringMatching(/\/gitops$/), error: expect.stringContaining('not found') },
      ]);
      expect(report.findings.resolved).toBe(0);
      expect(await openRules('secret')).toEqual(['plaintext-secret']);
    } finally {
      await rename(`${path}.away`, path);
    }
  });

  it('out of time, audits nothing and resolves nothing, but still catches a missed webhook', async () => {
    const before = (await world.findings.loadOpen()).length;
    const pushed = await commitFiles(world.git.root, 'gitops', {
      changes: { 'apps/secret/secret.yaml': null, 'apps/secret/deploy.yaml': DEPLOY },
      message: 'drop the secret',
    });
    world.clock.advance(5 * MINUTE);
    const report = await world.pass({ graceSeconds: 0, timeBudgetMs: 0 });
    expect(report.skipped.notAudited).toBe(report.applications);
    expect(report.findings).toMatchObject({ created: 0, resolved: 0, open: before });
    expect(report.missedWebhooks.filter((m) => m.sha === pushed.after).map((m) => m.action)).toEqual([
      'enqueued',
    ]);
  });
});
