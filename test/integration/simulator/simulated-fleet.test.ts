import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { defaultFleet } from '../../../infra/simulator/default-fleet.js';
import { defaultPush, defaultPushExpectations } from '../../../infra/simulator/default-push.js';
import { DEFAULT_TAGS, defaultRepoFiles } from '../../../infra/simulator/default-repos.js';
import { defaultSecrets } from '../../../infra/simulator/default-secrets.js';
import { createMapResolver } from '../../../infra/simulator/revision-resolver.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import { syntheticFleet } from '../../../infra/simulator/synthetic-fleet.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { APPLICATION_SETS, APPLICATIONS, GIT_REPOSITORIES } from '../../../lib/kubernetes/resources.js';
import { waitFor } from '../../helpers/simulator.js';

const urls = { platform: 'http://127.0.0.1:1/platform.git', payments: 'http://127.0.0.1:1/payments.git' };
const FIRST = { platform: '1'.repeat(40), payments: '2'.repeat(40) };
const PUSHED = '3'.repeat(40);
const noSecrets = { getSecretString: () => Promise.reject(new Error('unused')) };

interface AppView {
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec: {
    source?: { repoURL: string };
    sources?: { repoURL: string }[];
    url?: string;
    generators?: { git?: { repoURL: string } }[];
  };
  status?: {
    sync?: { status?: string; revision?: string; revisions?: string[] };
    health?: { status?: string };
  };
}

describe('the default simulated fleet', () => {
  const heads = { platform: FIRST.platform, payments: FIRST.payments };
  let fleet: SimulatedFleet;
  let clients: ReadonlyMap<string, ClusterApi>;

  beforeAll(async () => {
    const tags = (sha: string, names: readonly string[]) => Object.fromEntries(names.map((t) => [t, sha]));
    const resolve = (repoURL: string, revision: string) =>
      createMapResolver({
        [urls.platform]: {
          defaultBranch: 'main',
          branches: { main: heads.platform },
          tags: tags(FIRST.platform, DEFAULT_TAGS.platform),
        },
        [urls.payments]: {
          defaultBranch: 'main',
          branches: { main: heads.payments },
          tags: tags(FIRST.payments, DEFAULT_TAGS.payments),
        },
      })(repoURL, revision);
    fleet = await startSimulatedFleet({
      ...defaultFleet(urls),
      resolveRevision: resolve,
      controller: { tickMs: 5, syncMs: 20, healthMs: 20 },
      repositories: [{ url: urls.platform }, { url: urls.payments }],
    });
    clients = createClusterClients(fleet.fleetConfig, { secrets: noSecrets, retry: false });
  });
  afterAll(async () => {
    await fleet?.close();
  });

  it('brings up hub, spoke-a, spoke-b and spoke-c with a fleet config that reaches each', async () => {
    expect(fleet.clusters.map((c) => c.name)).toEqual(['hub', 'spoke-a', 'spoke-b', 'spoke-c']);
    expect(fleet.fleetConfig.clusters.map((c) => [c.name, c.argocd?.namespace, c.flux?.namespace])).toEqual([
      ['hub', 'argocd', undefined],
      ['spoke-a', undefined, undefined],
      ['spoke-b', undefined, undefined],
      ['spoke-c', 'argocd', 'flux-system'],
    ]);
    expect([...fleet.controllers.keys()].sort()).toEqual(['hub', 'spoke-c']);
    const hubApps = await (clients.get('hub') as ClusterApi).list(APPLICATIONS, 'argocd');
    const spokeApps = await (clients.get('spoke-c') as ClusterApi).list(APPLICATIONS, 'argocd');
    expect(hubApps.items.length + spokeApps.items.length).toBeGreaterThanOrEqual(36);
  });

  it('starts every Application settled: Synced and Healthy at the commit its revision resolves to', async () => {
    const hubApps = (await (clients.get('hub') as ClusterApi).list(APPLICATIONS, 'argocd'))
      .items as unknown as AppView[];
    for (const app of hubApps) {
      expect(app.status?.sync?.status, app.metadata.name).toBe('Synced');
      expect(app.status?.health?.status, app.metadata.name).toBe('Healthy');
    }
    const gateway = hubApps.find((a) => a.metadata.name === 'gateway-spoke-a');
    expect(gateway?.status?.sync?.revisions).toEqual([FIRST.payments, FIRST.payments]);
  });

  it('has an expectation for every platform-repository object of the world, and only for those', async () => {
    const actual: string[] = [];
    for (const cluster of ['hub', 'spoke-c']) {
      const api = clients.get(cluster) as ClusterApi;
      for (const resource of [APPLICATIONS, APPLICATION_SETS, GIT_REPOSITORIES]) {
        for (const item of (await api.list(resource)).items as unknown as AppView[]) {
          const repos = [
            item.spec.source?.repoURL,
            ...(item.spec.sources ?? []).map((s) => s.repoURL),
            item.spec.url,
            ...(item.spec.generators ?? []).map((g) => g.git?.repoURL),
          ];
          if (repos.includes(urls.platform))
            actual.push(`${cluster}/${item.metadata.namespace}/${resource.kind}/${item.metadata.name}`);
        }
      }
    }
    const expected = defaultPushExpectations().map((e) => `${e.cluster}/${e.namespace}/${e.kind}/${e.name}`);
    expect([...actual].sort()).toEqual([...expected].sort());
  });

  it('takes a refreshed app of the sample push to synced, and leaves a pinned one alone', async () => {
    heads.platform = PUSHED;
    const hub = clients.get('hub') as ClusterApi;
    const refresh = { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } };
    await hub.mergePatch(APPLICATIONS, 'argocd', 'web-spoke-a', refresh);
    await hub.mergePatch(APPLICATIONS, 'argocd', 'web-canary', refresh);
    await hub.mergePatch(APPLICATIONS, 'argocd', 'web-release', refresh);
    const settled = await waitFor(async () => {
      const apps = (await hub.list(APPLICATIONS, 'argocd')).items as unknown as AppView[];
      const byName = new Map(apps.map((a) => [a.metadata.name, a]));
      const health = (name: string) => byName.get(name)?.status?.health?.status;
      return health('web-spoke-a') === 'Healthy' && health('web-canary') === 'Degraded' ? byName : undefined;
    });
    expect(settled.get('web-spoke-a')?.status?.sync).toEqual({ revision: PUSHED, status: 'Synced' });
    expect(settled.get('web-canary')?.status?.sync).toEqual({ revision: PUSHED, status: 'Synced' });
    expect(settled.get('web-release')?.status?.sync).toEqual({ revision: FIRST.platform, status: 'Synced' });
    expect(fleet.servers.get('hub')?.requests.count({ verb: 'patch', resource: 'applications' })).toBe(3);
  });

  it('lets a test inject faults into one cluster', async () => {
    const spokeC = clients.get('spoke-c') as ClusterApi;
    fleet.servers.get('spoke-c')?.faults.set({ status: 503, times: 1 });
    await expect(spokeC.list(APPLICATIONS, 'argocd')).rejects.toMatchObject({
      upstreamStatus: 503,
      retryable: true,
    });
    await expect(spokeC.list(APPLICATIONS, 'argocd')).resolves.toBeDefined();
  });
});

describe('the default world data', () => {
  it('changes only apps/web/base/deployment.yaml in the sample push', () => {
    const push = defaultPush();
    expect(Object.keys(push.changes)).toEqual(['apps/web/base/deployment.yaml']);
    expect(push.changes['apps/web/base/deployment.yaml']).toContain('ghcr.io/example/web:1.9.0');
  });

  it('references only secrets the Secrets Manager seed holds, with exactly one missing property', () => {
    const secrets = defaultSecrets();
    const missing: string[] = [];
    const files = defaultRepoFiles();
    for (const [path, text] of [...Object.entries(files.platform), ...Object.entries(files.payments)]) {
      if (!path.endsWith('.yaml') || text.includes('{{')) continue;
      for (const doc of parseAllDocuments(text)) {
        const object = doc.toJS() as {
          kind?: string;
          spec?: { data?: { remoteRef: { key: string; property?: string } }[] };
        };
        if (object?.kind !== 'ExternalSecret') continue;
        for (const { remoteRef } of object.spec?.data ?? []) {
          const value = secrets[remoteRef.key];
          expect(value, `${path}: ${remoteRef.key}`).toBeDefined();
          if (remoteRef.property === undefined || typeof value !== 'string') continue;
          const json = JSON.parse(value) as Record<string, unknown>;
          const nested = remoteRef.property
            .split('.')
            .reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], json);
          if (!(remoteRef.property in json) && nested === undefined)
            missing.push(`${remoteRef.key}#${remoteRef.property}`);
        }
      }
    }
    expect(missing).toEqual(['platform/web/analytics#spokeBToken']);
    expect(Object.values(secrets).filter((v) => v instanceof Uint8Array)).toHaveLength(1);
  });
});

describe('a benchmark-sized simulated fleet', () => {
  it('serves 5,000 Applications over 50 clusters, one LIST per cluster', async () => {
    const repoURL = 'http://127.0.0.1:1/bench.git';
    const fleet = await startSimulatedFleet({
      ...syntheticFleet({ clusters: 50, applications: 5000, repoURL }),
      resolveRevision: createMapResolver({
        [repoURL]: { defaultBranch: 'main', branches: { main: FIRST.platform } },
      }),
      controller: { tickMs: 0 },
    });
    try {
      const clients = createClusterClients(fleet.fleetConfig, { secrets: noSecrets, retry: false });
      const lists = await Promise.all([...clients.values()].map((api) => api.list(APPLICATIONS, 'argocd')));
      expect(lists.reduce((n, l) => n + l.items.length, 0)).toBe(5000);
      for (const server of fleet.servers.values())
        expect(server.requests.count({ verb: 'list', resource: 'applications' })).toBe(1);
    } finally {
      await fleet.close();
    }
  });
});
