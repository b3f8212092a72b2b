import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { systemClock } from '../../../lib/ports.js';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import type { AppTarget, StoredApp } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { liveKey, type TrackDeps, trackCluster } from '../../../lib/rollouts/track.js';
import { dynamoAppTransitions } from '../../../lib/store/app-transitions.js';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const app = (name: string): AppTarget => ({ cluster: 'hub', namespace: 'argocd', name, kind: 'Application' });

/** A live Application that ended its sync to `sha`: synced and healthy. */
const synced = (name: string, sha: string) => ({
  metadata: { name, namespace: 'argocd' },
  status: {
    sync: { status: 'Synced', revision: sha },
    health: { status: 'Healthy' },
    operationState: {
      phase: 'Succeeded',
      finishedAt: new Date().toISOString(),
      syncResult: { revision: sha },
      operation: { sync: { revision: sha } },
    },
  },
});

let counter = 0;

describe('a track poll with many changes on one cluster', () => {
  let table: TestTable;
  let ref: ReturnType<typeof createTableRef>;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => table.close());

  async function world(apps: number) {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'd');
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: new Date().toISOString(),
    };
    const writer = dynamoRolloutWriter(ref, 86400);
    const reader = dynamoRolloutReader(ref);
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    const names = Array.from({ length: apps }, (_, i) => `app-${i}`);
    for (const name of names)
      await writer.recordApp(meta, { ...app(name), state: 'refreshed', revision: 'old' });
    const trackers = dynamoClusterTrackers(ref, 86400);
    await trackers.register('hub', sha, new Date());
    const live = new Map(names.map((n) => [liveKey('Application', 'argocd', n), synced(n, sha)]));
    const leases = dynamoClusterLeases(ref);
    const deps: TrackDeps = {
      rollouts: { ...reader, ...writer, ...dynamoAppTransitions(ref) },
      leases,
      trackers,
      refPushes: { recent: async () => [] },
      live: { listTargets: async () => live },
      notify: async () => {},
      queue: new MemoryQueue<TrackMessage>('track'),
      clock: systemClock,
      logger: createMemoryLogger(),
      intervalSeconds: 1,
      maxIntervalSeconds: 5,
      chainLeaseSeconds: 4,
    };
    return { sha, deps, reader, writer, leases, meta };
  }

  it('writes every change once, at the next version, and derives the summary from them', async () => {
    const { sha, deps, reader } = await world(30);
    const result = await trackCluster({ type: 'track', cluster: 'hub', attempt: 0 }, deps);
    expect(result.changed).toBe(30);
    const apps = await reader.listApps(sha, 'hub');
    expect(new Set(apps.map((a) => `${a.state}@${a.version}`))).toEqual(new Set(['synced@2']));
    const summary = await reader.summary(sha);
    expect(summary?.status).toBe('succeeded');
    expect(summary?.counts).toEqual({ synced: 30 });
  });

  it('writes each change on its own while a fan-out work item holds the cluster', async () => {
    const { sha, deps, reader, leases } = await world(12);
    expect((await leases.acquire(sha, 'hub', 'work-item', Date.now() + 60_000)).held).toBe(true);
    const result = await trackCluster({ type: 'track', cluster: 'hub', attempt: 0 }, deps);
    expect(result.changed).toBe(12);
    expect((await reader.listApps(sha, 'hub')).every((a) => a.state === 'synced')).toBe(true);
    expect((await reader.summary(sha))?.counts).toEqual({ synced: 12 });
    // The poll neither took the lease over nor released the work item's.
    expect((await leases.acquire(sha, 'hub', 'another', Date.now() + 60_000)).held).toBe(false);
  });

  it('leaves an app changed since it was read to be decided again, never moving a state back', async () => {
    const { sha, writer, reader } = await world(3);
    const [a0, a1] = await reader.listApps(sha, 'hub');
    // Someone moved app-0 on since (its version grew); app-1 is asked to go back from failed to refreshed.
    await writer.transition(sha, app('app-0'), { message: 'touched' }, a0?.version ?? 0);
    await writer.transition(sha, app('app-1'), { state: 'failed' }, a1?.version ?? 0);
    const fresh = await reader.listApps(sha, 'hub');
    const result = await dynamoAppTransitions(ref).transitionMany(sha, 'hub', [
      { target: app('app-0'), change: { state: 'synced' }, expectedVersion: a0?.version ?? 0 },
      { target: app('app-1'), change: { state: 'refreshed' }, expectedVersion: fresh[1]?.version ?? 0 },
      {
        target: app('app-2'),
        change: { state: 'synced', message: null },
        expectedVersion: fresh[2]?.version ?? 0,
      },
    ]);
    expect(result.updated).toBe(1);
    expect(result.conflicts.map((t) => t.name).sort()).toEqual(['app-0', 'app-1']);
    const after = new Map((await reader.listApps(sha, 'hub')).map((a) => [a.name, a]));
    // What it returns as the cluster's apps after its writes is what is stored.
    const brief = (a: StoredApp) => [a.name, a.state, a.version];
    expect(result.apps.map(brief)).toEqual([...after.values()].map(brief));
    expect(after.get('app-0')?.state).toBe('refreshed');
    expect(after.get('app-1')?.state).toBe('failed');
    expect(after.get('app-2')?.state).toBe('synced');
  });
});
