import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import type { FleetCluster, FleetGateway } from '../../../lib/fleet/gateway.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { buildMatchIndex } from '../../../lib/matching/match-index.js';
import type { ClusterWorkMessage, FanoutMessage } from '../../../lib/queue/messages.js';
import { type ClusterWorkDeps, runClusterWork } from '../../../lib/rollouts/cluster-work.js';
import type { ClusterLeases } from '../../../lib/rollouts/ports/cluster-leases.js';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import {
  application,
  type RenderWorld,
  startHubApi,
  startRenderWorld,
  startWorldRollout,
  yaml,
} from '../argocd-api/harness.js';

const TOKEN = 'early-listing-admin-token';

/**
 * The plan's work item lists its cluster while it takes the cluster's lease (two round trips less before
 * the first PATCH). That listing may predate another holder's last writes, so only the commit's first
 * holder on the cluster (nothing of the commit recorded there yet) may decide from it; any other holder
 * lists again under the lease. Real parts: dynalite (leases, records), the simulated API server.
 */
describe("a work item's listing started beside the lease", () => {
  let world: RenderWorld;
  let kube: KubeApiServer;
  let api: ClusterApi;
  let table: TestTable;
  let ref: TableRef;
  beforeAll(async () => {
    world = await startRenderWorld(
      {
        'apps/web/deployment.yaml': yaml({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
        }),
      },
      [],
    );
    world.store.create(
      APPLICATIONS,
      application('web', { source: { repoURL: world.repoUrl, path: 'apps/web', targetRevision: 'main' } }),
    );
    ({ kube, api } = await startHubApi(world, TOKEN));
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  }, 60_000);
  afterAll(async () => {
    await kube?.close();
    await table?.close();
    await world?.close();
  });

  /**
   * The work item's world, with what it saw: `leased` counts the listings started before the lease was
   * taken; a listing started before it answers `before` (a snapshot of the cluster before another holder's
   * last writes) when one is given; `unlisted` makes every listing fail.
   */
  function worldOf(
    options: { before?: readonly unknown[]; unlisted?: boolean; leases?: ClusterLeases } = {},
  ) {
    const seen = {
      listings: 0,
      beforeLease: 0,
      inFlight: 0,
      mostInFlight: 0,
      leased: false,
      answered: 0,
      warmed: [] as { cluster: string; sha: string; answered: number }[],
      sent: [] as FanoutMessage[],
    };
    const hub = {
      name: 'hub',
      kinds: ['Application'],
      concurrency: 4,
      list: async () => {
        seen.listings++;
        const early = !seen.leased;
        if (early) seen.beforeLease++;
        if (options.unlisted === true) throw new Error('connect ECONNREFUSED');
        seen.inFlight++;
        seen.mostInFlight = Math.max(seen.mostInFlight, seen.inFlight);
        try {
          const items = (await api.list(APPLICATIONS, 'argocd')).items;
          // The early listing of a large hub takes a while: still reading when the lease is taken.
          if (early && options.before !== undefined) {
            await new Promise((resolve) => setTimeout(resolve, 200));
            return options.before;
          }
          return items;
        } finally {
          seen.inFlight--;
          seen.answered++;
        }
      },
      patch: async (target: { namespace: string; name: string }, patch: object) => {
        await api.mergePatch(APPLICATIONS, target.namespace, target.name, patch as Record<string, unknown>);
      },
    } as unknown as FleetCluster;
    const leases = options.leases ?? dynamoClusterLeases(ref, 86_400);
    const writer = dynamoRolloutWriter(ref, 3600);
    const deps: ClusterWorkDeps = {
      fleet: { clusters: [hub], cluster: (n: string) => (n === 'hub' ? hub : undefined) } as FleetGateway,
      rollouts: { ...writer, listApps: dynamoRolloutReader(ref).listApps },
      trackers: dynamoClusterTrackers(ref, 3600),
      preflight: async () => ({ verdict: 'pass', checks: [] }),
      warmCommit: (cluster, event) => {
        seen.warmed.push({ cluster, sha: event.after, answered: seen.answered });
      },
      matchIndex: (_cluster, objects) => buildMatchIndex(objects),
      notify: async () => undefined,
      queue: {
        send: async (m) => {
          seen.sent.push(m);
        },
        sendBatch: async (entries) => {
          for (const e of entries) seen.sent.push(e.message);
        },
      },
      trackQueue: { send: async () => undefined, sendBatch: async () => undefined },
      clock: { now: () => new Date() },
      logger: createMemoryLogger(),
      trackIntervalSeconds: 5,
      chainLeaseSeconds: 60,
      leases: {
        acquire: async (...args) => {
          const taken = await leases.acquire(...args);
          seen.leased = taken.held;
          return taken;
        },
        release: (...args) => leases.release(...args),
      },
      newApps: (meta, lease) => writer.newApps(meta, lease),
    };
    return { deps, seen };
  }

  const message = (sha: string, extra: Partial<ClusterWorkMessage> = {}): ClusterWorkMessage => ({
    type: 'cluster',
    trigger: 'webhook',
    event: { ...world.push(), after: sha, deliveryId: `d-${sha.slice(0, 6)}` },
    cluster: 'hub',
    attempt: 0,
    deadline: new Date(Date.now() + 3_600_000).toISOString(),
    ...extra,
  });
  const start = (sha: string) => startWorldRollout(ref, world, sha);
  const budget = () => ({ deadlineMs: Date.now() + 30_000 });
  const patches = () => kube.requests.appliedPatches('applications').get('web') ?? 0;
  const setLive = (revision: string) =>
    world.store.update(APPLICATIONS, 'argocd', 'web', (draft) => {
      (draft as { status?: unknown }).status = {
        sync: { status: 'Synced', revision },
        health: { status: 'Healthy' },
        operationState: { phase: 'Succeeded', operation: { sync: { revision } } },
      };
    });

  it("lists once, beside the lease's take, as the commit's first holder", async () => {
    const sha = '1'.repeat(40);
    await start(sha);
    setLive('0'.repeat(40));
    kube.requests.reset();
    const { deps, seen } = worldOf();
    const result = await runClusterWork(message(sha), deps, budget());
    expect(seen.listings).toBe(1);
    expect(seen.beforeLease).toBe(1);
    expect(result.refreshed).toBe(1);
    expect(patches()).toBe(1);
    // The commit the preflight reads was asked for as the work item started, before the listing answered.
    expect(seen.warmed).toEqual([{ cluster: 'hub', sha, answered: 0 }]);
  });

  it('lists again under the lease as a later holder, after the early listing, and decides from the new one', async () => {
    const sha = '2'.repeat(40);
    await start(sha);
    setLive('0'.repeat(40));
    // The first delivery refreshes the app; then it syncs to the commit and track records it synced.
    const first = worldOf();
    await runClusterWork(message(sha), first.deps, budget());
    const behind = (await api.list(APPLICATIONS, 'argocd')).items;
    setLive(sha);
    const [record] = await dynamoRolloutReader(ref).listApps(sha, 'hub');
    expect(record?.state).toBe('refreshed');
    const target = { cluster: 'hub', kind: 'Application' as const, namespace: 'argocd', name: 'web' };
    expect(
      await dynamoRolloutWriter(ref, 3600).transition(sha, target, { state: 'synced' }, record?.version ?? 0),
    ).toBe('updated');
    kube.requests.reset();

    // SQS delivers the plan's item again. A listing read before the lease is the cluster before the sync:
    // decided from it, the synced app would look rolled back and be refreshed again.
    const again = worldOf({ before: behind });
    const result = await runClusterWork(message(sha), again.deps, budget());
    expect(again.seen.beforeLease).toBe(1);
    expect(again.seen.listings).toBe(2);
    // The early listing ended (and was let go) before the one under the lease began: never two at once.
    expect(again.seen.mostInFlight).toBe(1);
    expect(result.refreshed).toBe(0);
    expect(patches()).toBe(0);
    const [after] = await dynamoRolloutReader(ref).listApps(sha, 'hub');
    expect(after?.state).toBe('synced');
  });

  it('does not list before the lease for a retry or a release', async () => {
    const sha = '3'.repeat(40);
    await start(sha);
    setLive('0'.repeat(40));
    for (const extra of [{ attempt: 1 }, { retry: true as const }, { release: true as const }]) {
      const { deps, seen } = worldOf();
      await runClusterWork(message(sha, extra), deps, budget());
      expect(seen.beforeLease, JSON.stringify(extra)).toBe(0);
    }
  });

  it('fetches no commit ahead for a rollout past its deadline', async () => {
    const sha = '5'.repeat(40);
    await start(sha);
    const { deps, seen } = worldOf();
    const late = message(sha, { attempt: 1, deadline: new Date(Date.now() - 1_000).toISOString() });
    const result = await runClusterWork(late, deps, budget());
    expect(result).toMatchObject({ matched: 0, refreshed: 0 });
    expect(seen.warmed).toEqual([]);
  });

  it("defers when another holder has the lease, and the early listing failing meanwhile is no one's error", async () => {
    const sha = '4'.repeat(40);
    await start(sha);
    const leases = dynamoClusterLeases(ref, 86_400);
    const other = await leases.acquire(sha, 'hub', 'other#1', Date.now() + 60_000);
    expect(other.held).toBe(true);
    const { deps, seen } = worldOf({ unlisted: true, leases });
    const result = await runClusterWork(message(sha), deps, budget());
    expect(result).toMatchObject({ matched: 0, refreshed: 0 });
    expect(seen.beforeLease).toBe(1);
    // The work item comes back once the other holder is done; nothing was failed or recorded for it.
    expect(seen.sent).toHaveLength(1);
    expect(seen.sent[0]).toMatchObject({ type: 'cluster', cluster: 'hub', attempt: 0 });
    expect(await dynamoRolloutReader(ref).listApps(sha, 'hub')).toEqual([]);
  });
});
