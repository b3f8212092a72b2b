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

  /** An app of the world's repository at `path`, as fan-out matches it. */
  const match = (name: string, path: string) => {
    const a = app(name, path);
    (a.spec as { source: Record<string, unknown> }).source.repoURL = world.repoUrl;
    return world.addApp(a);
  };

  /** A preflight whose stores answer `stores` (or fail), and the clusters it listed them on. */
  const preflightWith = (stores: readonly unknown[] | Error) => {
    const reads: string[] = [];
    const preflight = world.preflight({
      argocd: false,
      clusterStores: async (cluster) => {
        reads.push(cluster);
        if (stores instanceof Error) throw stores;
        return stores;
      },
    });
    return {
      preflight,
      reads,
      run: (name: string, path: string) => preflight.run(match(name, path), world.push()),
    };
  };

  it('passes an app without ExternalSecrets without listing the stores, even when they cannot be listed', async () => {
    const { preflight, reads, run } = preflightWith(new Error('secretstores is forbidden'));
    try {
      const verdict = await run('plain', 'apps/plain');
      expect(verdict.verdict).toBe('pass');
      expect(verdict.checks).toEqual([]);
      expect(reads).toEqual([]);
    } finally {
      await preflight.close();
    }
  });

  it('lists the stores once per invocation for the apps that need them, and resolves through them', async () => {
    const { preflight, reads, run } = preflightWith([CLUSTER_STORE]);
    try {
      const plain = await run('plain-2', 'apps/plain');
      const first = await run('secret-1', 'apps/secret');
      const second = await run('secret-2', 'apps/secret');
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
    const { preflight, run } = preflightWith(new Error('secretstores is forbidden'));
    try {
      await expect(run('secret-3', 'apps/secret')).rejects.toThrow(/forbidden/);
    } finally {
      await preflight.close();
    }
  });
});
