import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  application,
  CLUSTER_STORE,
  externalSecret,
  type RenderWorld,
  startRenderWorld,
  yaml,
} from '../argocd-api/harness.js';

// The preflight reads a destination cluster's SecretStores and ClusterSecretStores (two LISTs) only for an
// app whose manifests declare an ExternalSecret with a reference to resolve: most apps declare none, and
// their refresh must not wait a round trip for stores nothing asks about, nor fail when they cannot be read.

const files = {
  'apps/plain/deployment.yaml': yaml({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'plain' },
    spec: { replicas: 2 },
  }),
  'apps/plain/service.yaml': yaml({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'plain' } }),
  'apps/secret/externalsecret.yaml': yaml(externalSecret('web-db', 'shop/db', 'password')),
};

const app = (name: string, path: string) =>
  application(name, { source: { repoURL: '', path, targetRevision: 'main' } });

describe('the preflight reads the cluster stores only when a reference needs them', () => {
  let world: RenderWorld;
  beforeAll(async () => {
    world = await startRenderWorld(files, [{ name: 'shop/db', string: JSON.stringify({ password: 'pw' }) }]);
  });
  afterAll(async () => {
    await world?.close();
  });

  const withRepo = (a: ReturnType<typeof application>) => {
    (a.spec as { source: Record<string, unknown> }).source.repoURL = world.repoUrl;
    return a;
  };

  it('passes an app without ExternalSecrets without listing the stores, even when they cannot be listed', async () => {
    const reads: string[] = [];
    const preflight = world.preflight({
      argocd: false,
      clusterStores: async (cluster) => {
        reads.push(cluster);
        throw new Error('secretstores is forbidden');
      },
    });
    try {
      const verdict = await preflight.run(world.addApp(withRepo(app('plain', 'apps/plain'))), world.push());
      expect(verdict.verdict).toBe('pass');
      expect(verdict.checks).toEqual([]);
      expect(reads).toEqual([]);
    } finally {
      await preflight.close();
    }
  });

  it('lists the stores once per invocation for the apps that need them, and resolves through them', async () => {
    const reads: string[] = [];
    const preflight = world.preflight({
      argocd: false,
      clusterStores: async (cluster) => {
        reads.push(cluster);
        return [CLUSTER_STORE];
      },
    });
    try {
      const plain = await preflight.run(world.addApp(withRepo(app('plain-2', 'apps/plain'))), world.push());
      const first = await preflight.run(world.addApp(withRepo(app('secret-1', 'apps/secret'))), world.push());
      const second = await preflight.run(
        world.addApp(withRepo(app('secret-2', 'apps/secret'))),
        world.push(),
      );
      expect(plain.verdict).toBe('pass');
      for (const verdict of [first, second]) {
        expect(verdict.verdict).toBe('pass');
        expect(verdict.checks).toMatchObject([{ externalSecret: 'shop/web-db', outcome: 'ok' }]);
      }
      expect(reads).toEqual(['hub']);
    } finally {
      await preflight.close();
    }
  });

  it('still fails the preflight of an app that needs the stores when they cannot be read', async () => {
    const preflight = world.preflight({
      argocd: false,
      clusterStores: async () => {
        throw new Error('secretstores is forbidden');
      },
    });
    try {
      await expect(
        preflight.run(world.addApp(withRepo(app('secret-3', 'apps/secret'))), world.push()),
      ).rejects.toThrow(/forbidden/);
    } finally {
      await preflight.close();
    }
  });
});
