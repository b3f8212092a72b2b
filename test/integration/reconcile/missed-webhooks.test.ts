import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, tag } from '../../../infra/local/git-repos.js';
import type { FleetGateway } from '../../../lib/fleet/gateway.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { buildMatchIndex } from '../../../lib/matching/match-index.js';
import type { FanoutMessage, PushMessage } from '../../../lib/queue/messages.js';
import { type FanoutDeps, fanout } from '../../../lib/rollouts/fanout.js';
import { dynamoOpenRollouts } from '../../../lib/store/open-rollouts.js';
import { dynamoRefPushes } from '../../../lib/store/ref-pushes.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { type ReconcileWorld, startReconcileWorld } from './harness.js';

const MINUTE = 60_000;

const app = (name: string, source: Record<string, unknown>) => ({
  resource: APPLICATIONS,
  object: {
    metadata: {
      name,
      namespace: 'argocd',
      finalizers: ['resources-finalizer.argocd.argoproj.io'],
    },
    spec: {
      project: 'shop',
      source,
      destination: { name: 'in-cluster', namespace: name },
      syncPolicy: { automated: { prune: true, selfHeal: true, allowEmpty: false } },
    },
  },
});

const deployment = (name: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  template:\n    spec:\n      containers: [{ name: app, image: "ghcr.io/org/${name}:1.0.0" }]\n`;

describe('missed webhooks: a pass against simulated Argo CD and a real Git server', () => {
  let world: ReconcileWorld;

  beforeAll(async () => {
    world = await startReconcileWorld({
      repos: {
        gitops: {
          files: { 'apps/web/deploy.yaml': deployment('web'), 'charts/api/deploy.yaml': deployment('api') },
          tags: ['v1.0.0', 'v1.2.0', 'v2.0.0'],
        },
      },
      clusters: [{ name: 'hub', argocd: { namespace: 'argocd' } }],
      objects: (urls) => ({
        hub: [
          app('web', { repoURL: urls.gitops, path: 'apps/web', targetRevision: 'HEAD' }),
          app('web-main', { repoURL: urls.gitops, path: 'apps/web', targetRevision: 'main' }),
          app('api', { repoURL: urls.gitops, path: 'charts/api', targetRevision: '^1.0.0' }),
        ],
      }),
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('finds nothing behind in a settled fleet', async () => {
    const report = await world.pass();
    expect(report.clusters.unread).toEqual([]);
    expect(report.applications).toBe(3);
    expect(report.repositories.read).toEqual([expect.stringMatching(/\/gitops$/)]);
    expect(report.missedWebhooks).toEqual([]);
    expect(world.sent).toEqual([]);
  });

  it('waits out the grace period, then enqueues exactly one schedule push for a commit with no webhook', async () => {
    const synced = syncedRevision(world, 'web');
    const pushed = await commitFiles(world.git.root, 'gitops', {
      changes: { 'apps/web/deploy.yaml': deployment('web').replace('1.0.0', '1.1.0') },
      message: 'bump web',
    });

    const first = await world.pass();
    expect(first.missedWebhooks).toEqual([
      expect.objectContaining({ ref: 'refs/heads/main', sha: pushed.after, apps: 2, action: 'waiting' }),
    ]);
    expect(world.sent).toEqual([]);

    world.clock.advance(3 * MINUTE);
    const second = await world.pass();
    expect(second.missedWebhooks).toEqual([
      expect.objectContaining({ ref: 'refs/heads/main', sha: pushed.after, apps: 2, action: 'enqueued' }),
    ]);
    expect(world.sent).toHaveLength(1);
    const [message] = world.sent;
    expect(message).toMatchObject({ type: 'push', trigger: 'schedule', missedWebhook: true });
    expect(message?.event).toMatchObject({
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: synced,
      after: pushed.after,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      changedFiles: { known: false, reason: 'no-commit-list' },
      repo: { defaultBranch: 'main' },
    });
    expect(message?.event.deliveryId).toMatch(/^reconcile:.*gitops:refs\/heads\/main:[0-9a-f]{40}$/);
  });

  it('does not enqueue the same push again on the next pass', async () => {
    world.clock.advance(5 * MINUTE);
    const report = await world.pass();
    expect(report.missedWebhooks.map((m) => m.action)).toEqual(['already-enqueued']);
    expect(world.sent).toHaveLength(1);
  });

  it('is refreshed by fan-out of the enqueued push, after which the pass finds the apps caught up', async () => {
    const message = world.sent[0] as PushMessage;
    expect(message.apps?.map((a) => a.name).sort()).toEqual(['web', 'web-main']);
    const result = await fanoutThrough(message, world);
    expect(result).toMatchObject({ cluster: 'hub', matched: 2, refreshed: 2, retrying: 0 });
    await world.sim.tick();
    for (const name of ['web', 'web-main']) expect(syncedRevision(world, name)).toBe(message.event.after);
    world.clock.advance(5 * MINUTE);
    const report = await world.pass();
    expect(report.missedWebhooks).toEqual([]);
    expect(await world.rollouts.exists(message.event.after)).toBe(true);
  });

  it('refreshes the apps behind a commit whose rollout exists but has no record of them', async () => {
    const pushed = await commitFiles(world.git.root, 'gitops', {
      changes: { 'apps/web/extra.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: extra }\n' },
      message: 'add a config map',
    });
    await dynamoRolloutWriter(world.table, 3600).start({
      sha: pushed.after,
      repo: 'gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: world.clock.now().toISOString(),
      repoUrl: world.urls.gitops ?? '',
      provider: 'github',
      author: 'Dev',
      commitTitle: 'add a config map',
      deadline: world.clock.now().toISOString(),
    });
    await world.pass();
    world.clock.advance(3 * MINUTE);
    const report = await world.pass();
    expect(report.missedWebhooks).toEqual([
      expect.objectContaining({ sha: pushed.after, action: 'enqueued', refreshed: 2 }),
    ]);
    expect(world.sent).toHaveLength(2);
    expect(world.sent[1]?.apps?.map((a) => a.name).sort()).toEqual(['web', 'web-main']);
    // The claim stands: the next pass does not send the same refresh again.
    world.clock.advance(5 * MINUTE);
    const again = await world.pass();
    expect(again.missedWebhooks.map((m) => m.action)).toEqual(['already-enqueued']);
    expect(world.sent).toHaveLength(2);
  });

  it('resolves a semver-pinned app to the highest matching tag and enqueues that tag', async () => {
    const target = await commitFiles(world.git.root, 'gitops', {
      changes: { 'charts/api/deploy.yaml': deployment('api').replace('1.0.0', '1.3.0') },
      message: 'api 1.3.0',
    });
    await tag(world.git.root, 'gitops', { tag: 'v1.3.0', target: target.after });
    world.sent.length = 0;
    const report = await world.pass({ graceSeconds: 0 });
    const api = report.missedWebhooks.find((m) => m.ref.startsWith('refs/tags/'));
    expect(api).toMatchObject({ ref: 'refs/tags/v1.3.0', sha: target.after, apps: 1, action: 'enqueued' });
    const message = world.sent.find((m) => m.event.refType === 'tag');
    expect(message?.event).toMatchObject({
      ref: 'refs/tags/v1.3.0',
      refName: 'v1.3.0',
      after: target.after,
      touchedDefaultBranch: false,
    });
  });
});

/** The real fan-out over the simulated hub: the plan, then the one work item it sends for the hub. */
async function fanoutThrough(message: PushMessage, world: ReconcileWorld) {
  const items: FanoutMessage[] = [];
  const deps = fanoutDeps(world, items);
  const budget = { deadlineMs: Date.now() + 60_000 };
  await fanout(message, deps, budget);
  const [item] = items;
  if (item === undefined) throw new Error('the plan sent no work item');
  return fanout(item, deps, budget);
}

function fanoutDeps(world: ReconcileWorld, items: FanoutMessage[]): FanoutDeps {
  const api = world.clients.get('hub');
  if (api === undefined) throw new Error('no hub client');
  const hub = {
    name: 'hub',
    kinds: ['Application'] as const,
    concurrency: 4,
    list: async () => (await api.list(APPLICATIONS, 'argocd')).items,
    patch: async (target: { namespace: string; name: string }, patch: object) => {
      await api.mergePatch(APPLICATIONS, target.namespace, target.name, patch as Record<string, unknown>);
    },
  };
  const fleet: FleetGateway = { clusters: [hub], cluster: (name) => (name === 'hub' ? hub : undefined) };
  return {
    fleet,
    rollouts: {
      ...dynamoRolloutWriter(world.table, 3600),
      listApps: dynamoRolloutReader(world.table).listApps,
    },
    trackers: dynamoClusterTrackers(world.table, 3600),
    open: dynamoOpenRollouts(world.table, 86_400),
    refPushes: dynamoRefPushes(world.table, 3600),
    changedFiles: async (event) => event.changedFiles,
    preflight: async () => ({ verdict: 'pass', checks: [] }),
    matchIndex: (_cluster, objects) => buildMatchIndex(objects),
    notify: async () => undefined,
    queue: {
      send: async (m) => {
        items.push(m);
      },
      sendBatch: async (entries) => {
        for (const entry of entries) items.push(entry.message);
      },
    },
    trackQueue: { send: async () => undefined, sendBatch: async () => undefined },
    clock: world.clock,
    logger: createMemoryLogger(),
    trackDeadlineSeconds: 600,
    trackIntervalSeconds: 5,
    chainLeaseSeconds: 120,
  };
}

function syncedRevision(world: ReconcileWorld, name: string): string | undefined {
  const app = world.sim.servers.get('hub')?.store.get(APPLICATIONS, 'argocd', name);
  return (app?.status as { sync?: { revision?: string } } | undefined)?.sync?.revision;
}
