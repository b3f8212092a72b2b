import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import type { FleetCluster, FleetGateway } from '../../../lib/fleet/gateway.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { buildMatchIndex } from '../../../lib/matching/match-index.js';
import type { ClusterWorkMessage, FanoutMessage } from '../../../lib/queue/messages.js';
import type { StoredApp } from '../../../lib/rollouts/app-model.js';
import { type ClusterWorkDeps, runClusterWork } from '../../../lib/rollouts/cluster-work.js';
import type { Preflight } from '../../../lib/rollouts/fanout.js';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import {
  application,
  externalSecret,
  type RenderWorld,
  startHubApi,
  startRenderWorld,
  startWorldRollout,
  yaml,
} from '../argocd-api/harness.js';

const TOKEN = 'budget-test-admin-token';
const FAST = ['a-0', 'a-1', 'a-2', 'a-3'];
const SLOW = 'z-slow';
/** Only a bound on a hang: a work item that returns at all returns long before this. */
const HUNG_MS = 15_000;

/**
 * Issue 21: the time budget was checked only before each claim. An Argo CD render that hangs (its client
 * waits 20 s per try) held the work item past its invocation, whose buffered new-app records were then
 * lost, and the redelivery patched every app again. Real parts: dynalite, the simulated API server (the
 * apps live in it and in the Argo CD API double), the real preflight and Argo CD client.
 */
describe('a work item whose Argo CD render outlasts its budget', () => {
  let world: RenderWorld;
  let kube: KubeApiServer;
  let api: ClusterApi;
  let table: TestTable;
  let ref: TableRef;
  let preflight: { run: Preflight; close(): Promise<void> };
  beforeAll(async () => {
    world = await startRenderWorld(
      {
        'apps/web/externalsecret.yaml': yaml(externalSecret('web-db', 'shop/db', 'password')),
      },
      [{ name: 'shop/db', string: JSON.stringify({ password: 'pw' }) }],
    );
    for (const name of [...FAST, SLOW]) {
      world.store.create(
        APPLICATIONS,
        application(name, { source: { repoURL: world.repoUrl, path: 'apps/web', targetRevision: 'main' } }),
      );
    }
    ({ kube, api } = await startHubApi(world, TOKEN));
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    // A render the Argo CD client waits 20 s for per try, as against a busy repo-server.
    preflight = world.preflight({ tuning: { timeoutMs: 20_000 } });
  }, 60_000);
  afterAll(async () => {
    await preflight?.close();
    await kube?.close();
    await table?.close();
    await world?.close();
  });

  const hub: FleetCluster = {
    name: 'hub',
    kinds: ['Application'],
    concurrency: 1,
    list: async () => (await api.list(APPLICATIONS, 'argocd')).items,
    patch: async (target: { namespace: string; name: string }, patch: object) => {
      await api.mergePatch(APPLICATIONS, target.namespace, target.name, patch as Record<string, unknown>);
    },
  } as unknown as FleetCluster;

  function deps(sent: FanoutMessage[], run: Preflight): ClusterWorkDeps {
    const writer = dynamoRolloutWriter(ref, 3600);
    const fleet = {
      clusters: [hub],
      cluster: (n: string) => (n === 'hub' ? hub : undefined),
    } as FleetGateway;
    return {
      fleet,
      rollouts: { ...writer, listApps: dynamoRolloutReader(ref).listApps },
      trackers: dynamoClusterTrackers(ref, 3600),
      preflight: run,
      matchIndex: (_cluster, objects) => buildMatchIndex(objects),
      notify: async () => undefined,
      queue: {
        send: async (m) => {
          sent.push(m);
        },
        sendBatch: async (entries) => {
          for (const e of entries) sent.push(e.message);
        },
      },
      trackQueue: { send: async () => undefined, sendBatch: async () => undefined },
      clock: { now: () => new Date() },
      logger: createMemoryLogger(),
      trackIntervalSeconds: 5,
      chainLeaseSeconds: 60,
      leases: dynamoClusterLeases(ref, 86_400),
      newApps: (meta) => writer.newApps(meta),
    };
  }

  function message(sha: string, deadline?: string): ClusterWorkMessage {
    const event = { ...world.push(), after: sha, deliveryId: `d-${sha.slice(0, 6)}` };
    return {
      type: 'cluster',
      trigger: 'webhook',
      event,
      cluster: 'hub',
      attempt: 0,
      ...(deadline ? { deadline } : {}),
    };
  }

  const start = (sha: string) => startWorldRollout(ref, world, sha);

  const patchesOf = (name: string) => kube.requests.appliedPatches('applications').get(name) ?? 0;
  const byName = (apps: readonly StoredApp[]) => new Map(apps.map((a) => [a.name, a]));
  const bounded = <T>(work: Promise<T>) =>
    Promise.race([
      work,
      new Promise<never>((_, r) => setTimeout(() => r(new Error('the work item hung')), HUNG_MS)),
    ]);

  it('records what it finished before the slow render, stops at its budget, and its redelivery patches only the rest', async () => {
    const sha = world.sha;
    await start(sha);
    kube.requests.reset();
    const sent: FanoutMessage[] = [];
    const run: Preflight = async (match, event, limits) => {
      if (match.target.name === SLOW) world.argocd.faults.set({ hang: true });
      return preflight.run(match, event, limits);
    };
    const deadline = new Date(Date.now() + 3_600_000).toISOString();
    const first = deps(sent, run);
    // What a kill just after the budget would leave: the records as the end-of-batch writes begin.
    let recordedAtBudget: readonly StoredApp[] | undefined;
    const rollouts = first.rollouts;
    const killPoint: ClusterWorkDeps = {
      ...first,
      rollouts: {
        ...rollouts,
        recordDecisions: async (...args) => {
          recordedAtBudget = await dynamoRolloutReader(ref).listApps(sha, 'hub');
          return rollouts.recordDecisions(...args);
        },
      },
    };
    const result = await bounded(
      runClusterWork(message(sha, deadline), killPoint, { deadlineMs: Date.now() + 4_000 }),
    );
    world.argocd.faults.clear();

    const done = FAST.filter((n) => patchesOf(n) === 1);
    expect(done.length).toBeGreaterThan(0);
    const before = byName(recordedAtBudget ?? []);
    for (const name of done) expect(before.get(name)?.state).toBe('refreshed');
    expect(patchesOf(SLOW)).toBe(0);
    expect(result.retrying).toBeGreaterThanOrEqual(1);
    // The rest continues at once, without using up an attempt.
    const next = sent.find((m): m is ClusterWorkMessage => m.type === 'cluster');
    expect(next?.attempt).toBe(0);
    expect(next?.apps?.map((a) => a.name)).toContain(SLOW);
    const slow = byName(await dynamoRolloutReader(ref).listApps(sha, 'hub')).get(SLOW);
    expect(slow === undefined || slow.state === 'matched').toBe(true);

    // The original message again (as SQS would redeliver it had the invocation died): only the rest is patched.
    // In the same warm container (the same render cache): the render cut at the budget is asked again.
    const rendersBefore = world.argocd.requests.filter((r) => r.name === SLOW).length;
    await bounded(
      runClusterWork(message(sha, deadline), deps([], preflight.run), { deadlineMs: Date.now() + 60_000 }),
    );
    expect(world.argocd.requests.filter((r) => r.name === SLOW).length).toBe(rendersBefore + 1);
    expect(patchesOf(SLOW)).toBe(1);
    for (const name of done) expect(patchesOf(name)).toBe(1);
    const after = byName(await dynamoRolloutReader(ref).listApps(sha, 'hub'));
    for (const name of [...FAST, SLOW]) expect(after.get(name)?.state).toBe('refreshed');
  }, 60_000);

  it('patches nothing once the rollout deadline has passed, even with budget left', async () => {
    const sha = 'b'.repeat(40);
    await start(sha);
    kube.requests.reset();
    const sent: FanoutMessage[] = [];
    // The slow render outlasts the rollout's deadline: the app is not patched and not retried.
    const run: Preflight = async (match, event, limits) => {
      if (match.target.name === FAST[0]) world.argocd.faults.set({ hang: true });
      return preflight.run(match, event, limits);
    };
    const deadline = new Date(Date.now() + 1_500).toISOString();
    await bounded(
      runClusterWork(message(sha, deadline), deps(sent, run), { deadlineMs: Date.now() + 60_000 }),
    );
    world.argocd.faults.clear();
    expect(kube.requests.appliedPatches('applications').size).toBe(0);
    // Nothing is left for a retry: past the rollout's deadline there is nothing to continue.
    expect(sent).toEqual([]);
    // A retry after the deadline (the one it sent, if any, or a redelivery) does not even list the cluster.
    const retries = [
      { ...message(sha, deadline), attempt: 1 },
      ...sent.filter((m): m is ClusterWorkMessage => m.type === 'cluster'),
    ];
    kube.requests.reset();
    for (const retry of retries) {
      await runClusterWork(retry, deps([], preflight.run), { deadlineMs: Date.now() + 60_000 });
    }
    expect(kube.requests.count({ verb: 'list' })).toBe(0);
    expect(kube.requests.appliedPatches('applications').size).toBe(0);
    const summary = await dynamoRolloutReader(ref).summary(sha);
    expect(summary?.clusterErrors?.hub).toMatch(/deadline passed/);
  }, 60_000);
});
