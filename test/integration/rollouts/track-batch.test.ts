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
import { rolloutPk } from '../../../lib/store/keys.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { handBackBesideRelease, startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { syncedApplication } from '../../helpers/simulator.js';

const app = (name: string): AppTarget => ({ cluster: 'hub', namespace: 'argocd', name, kind: 'Application' });

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
    const live = new Map(names.map((n) => [liveKey('Application', 'argocd', n), syncedApplication(n, sha)]));
    const leases = dynamoClusterLeases(ref, 86_400);
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

  /** The requests a table ref sends, named by command and the key they name (`UpdateCommand ROLLOUT#… LEASE#hub`). */
  function recordWrites(table: ReturnType<typeof createTableRef>): string[] {
    const sent: string[] = [];
    const send = table.doc.send.bind(table.doc);
    (table.doc as { send: unknown }).send = (command: { input: { Key?: { pk?: string; sk?: string } } }) => {
      const { pk = '', sk = '' } = command.input.Key ?? {};
      sent.push(`${command.constructor.name} ${pk} ${sk}`.trim());
      return send(command as never);
    };
    return sent;
  }

  it('releases the lease in the last request of its batch, not in a request of its own', async () => {
    const { sha, deps, leases, reader } = await world(30);
    const own = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const sent = recordWrites(own);
    const result = await trackCluster(
      { type: 'track', cluster: 'hub', attempt: 0 },
      {
        ...deps,
        leases: dynamoClusterLeases(own, 86_400),
        rollouts: { ...deps.rollouts, ...dynamoAppTransitions(own) },
      },
    );
    // (Rollouts of the tests before are registered on the same cluster: this one's 30 are among the changes.)
    expect(result.changed).toBeGreaterThanOrEqual(30);
    expect((await reader.listApps(sha, 'hub')).every((a) => a.state === 'synced')).toBe(true);
    // The acquire is a put (its key is in the item); no update or delete of this rollout's lease follows.
    expect(sent.filter((s) => s.includes(`${rolloutPk(sha)} LEASE#`))).toEqual([]);
    // Free for the next holder at once, not when the 60 s lease runs out.
    expect((await leases.acquire(sha, 'hub', 'next', Date.now() + 60_000)).held).toBe(true);
  });

  it('writes the puts DynamoDB handed back beside a processed release only at the version they were decided on', async () => {
    const { sha, reader, writer, leases } = await world(5);
    const before = await reader.listApps(sha, 'hub');
    const holder = 'track#test';
    expect((await leases.acquire(sha, 'hub', holder, Date.now() + 60_000)).held).toBe(true);
    // DynamoDB takes the release and three puts, hands app-0 and app-1 back; before they go again
    // another writer (under the now free lease) moves app-0 on.
    const { ref: faulty, handedBack } = handBackBesideRelease(table, async () => {
      await writer.transition(
        sha,
        app('app-0'),
        { state: 'failed', message: 'moved on' },
        before[0]?.version ?? 0,
      );
    });
    const result = await dynamoAppTransitions(faulty).transitionMany(
      sha,
      'hub',
      before.map((a) => ({
        target: app(a.name),
        change: { state: 'synced' as const },
        expectedVersion: a.version,
      })),
      { holder, expiresAt: 0 },
    );
    expect(handedBack()).toBe(true);
    expect(result.released).toBe(true);
    const after = new Map((await reader.listApps(sha, 'hub')).map((a) => [a.name, a]));
    // app-0's newer change stands (the handed-back put lost its condition); app-1 was written.
    expect(after.get('app-0')).toMatchObject({ state: 'failed', message: 'moved on' });
    expect(after.get('app-1')?.state).toBe('synced');
    expect([...after.values()].filter((a) => a.state === 'synced')).toHaveLength(4);
    expect((await leases.acquire(sha, 'hub', 'next', Date.now() + 60_000)).held).toBe(true);
  });

  it('keeps the lease through the conditional writes of a conflict and releases it after', async () => {
    const { sha, reader, writer, leases } = await world(3);
    const [a0] = await reader.listApps(sha, 'hub');
    await writer.transition(sha, app('app-0'), { message: 'touched' }, a0?.version ?? 0);
    const holder = 'track#conflict';
    expect((await leases.acquire(sha, 'hub', holder, Date.now() + 60_000)).held).toBe(true);
    const fresh = await reader.listApps(sha, 'hub');
    const result = await dynamoAppTransitions(ref).transitionMany(
      sha,
      'hub',
      [
        { target: app('app-0'), change: { state: 'synced' }, expectedVersion: a0?.version ?? 0 },
        ...fresh.slice(1).map((a) => ({
          target: app(a.name),
          change: { state: 'synced' as const },
          expectedVersion: a.version,
        })),
      ],
      { holder, expiresAt: 0 },
    );
    expect(result.conflicts.map((t) => t.name)).toEqual(['app-0']);
    expect(result.released).toBeUndefined();
    expect((await leases.acquire(sha, 'hub', 'next', Date.now() + 60_000)).held).toBe(false);
  });

  /** Apps app-0 … app-(n-1) of `sha` on the hub, Argo CD still at the commit before for the last `pending`. */
  function liveAt(sha: string, apps: number, pending: number) {
    return new Map(
      Array.from({ length: apps }, (_, i) => `app-${i}`).map((n, i) => [
        liveKey('Application', 'argocd', n),
        i < apps - pending
          ? syncedApplication(n, sha)
          : {
              metadata: { name: n, namespace: 'argocd' },
              status: { sync: { status: 'OutOfSync', revision: 'old' }, health: { status: 'Healthy' } },
            },
      ]),
    );
  }

  /** Reads of one rollout's app items on the hub (Query of `APP#hub#`) a table ref sends. */
  function countAppReads(table: ReturnType<typeof createTableRef>, sha: string) {
    const count = { reads: 0 };
    const send = table.doc.send.bind(table.doc);
    (table.doc as { send: unknown }).send = (command: {
      input: { ExpressionAttributeValues?: Record<string, unknown> };
    }) => {
      if (command.constructor.name === 'QueryCommand') {
        const values = command.input.ExpressionAttributeValues;
        if (values?.[':pk'] === rolloutPk(sha) && values[':prefix'] === 'APP#hub#') count.reads += 1;
      }
      return send(command as never);
    };
    return count;
  }

  /** Two polls of one chain: the first ends half the apps and passes its lease holder on; then the second. */
  async function twoPolls(between?: (sha: string) => Promise<void>) {
    const { sha, deps, reader } = await world(30);
    let live = liveAt(sha, 30, 15);
    const own = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const count = countAppReads(own, sha);
    const queue = new MemoryQueue<TrackMessage>('track');
    let interfere: (() => Promise<void>) | undefined;
    const polled = {
      ...deps,
      queue,
      rollouts: { ...deps.rollouts, ...dynamoRolloutReader(own), ...dynamoAppTransitions(own) },
      live: {
        listTargets: async () => {
          await interfere?.();
          return live;
        },
      },
    };
    // The hub's chain as the tests before left it (their rollouts are registered there too).
    const chain = (await deps.trackers.read?.('hub'))?.chain?.chain;
    const start: TrackMessage = { type: 'track', cluster: 'hub', attempt: 0, ...(chain ? { chain } : {}) };
    const first = await trackCluster(start, polled);
    expect(first.changed).toBeGreaterThanOrEqual(15);
    const next = queue.takeAll().find((m) => m.leaseHolders?.[sha] !== undefined);
    expect(next?.leaseHolders?.[sha]).toMatch(/^track#/);
    live = liveAt(sha, 30, 0);
    if (between !== undefined) interfere = () => between(sha);
    count.reads = 0;
    const second = await trackCluster(next as TrackMessage, polled);
    return { sha, reader, second, reads: count.reads };
  }

  it("a chain's next poll batches from its own read when the lease's last holder is the poll before", async () => {
    const { sha, reader, second, reads } = await twoPolls();
    expect(second.changed).toBeGreaterThanOrEqual(15);
    // The poll's read of the cluster's apps, and no second read under the lease.
    expect(reads).toBe(1);
    const apps = await reader.listApps(sha, 'hub');
    expect(apps.every((a) => a.state === 'synced')).toBe(true);
  });

  it('reads the apps again under the lease when another holder took it after the poll read them', async () => {
    const touched: { version?: number } = {};
    const { sha, reader, reads } = await twoPolls(async (sha) => {
      // Between the poll's read and its lease: a work item takes the lease, writes app-20, releases it.
      touched.version ??= await (async () => {
        const leases = dynamoClusterLeases(ref, 86_400);
        expect((await leases.acquire(sha, 'hub', 'work#between', Date.now() + 60_000)).held).toBe(true);
        const app20 = (await dynamoRolloutReader(ref).listApps(sha, 'hub')).find((a) => a.name === 'app-20');
        const version = app20?.version ?? 0;
        const writer = dynamoRolloutWriter(ref, 86400);
        expect(await writer.transition(sha, app('app-20'), { message: 'refreshed again' }, version)).toBe(
          'updated',
        );
        await leases.release(sha, 'hub', 'work#between');
        return version + 1;
      })();
    });
    expect(reads).toBeGreaterThanOrEqual(2);
    const app20 = (await reader.listApps(sha, 'hub')).find((a) => a.name === 'app-20');
    // The work item's write stands under the poll's change (one version on), not overwritten by the batch.
    expect(app20?.state).toBe('synced');
    expect(app20?.version).toBe((touched.version ?? 0) + 1);
  });

  /** The first poll after a work item, its message naming `lastHolder` as the lease's last holder (fan-out's). */
  async function firstPollAfterWork(lastHolder: string, between?: (sha: string) => Promise<void>) {
    const { sha, deps, reader, leases } = await world(30);
    // The work item: it held the rollout's lease on the cluster, recorded its apps and released it.
    const work = 'delivery-1#0#3f0c';
    expect((await leases.acquire(sha, 'hub', work, Date.now() + 60_000)).held).toBe(true);
    await leases.release(sha, 'hub', work);
    await between?.(sha);
    const own = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const count = countAppReads(own, sha);
    const polled = {
      ...deps,
      rollouts: { ...deps.rollouts, ...dynamoRolloutReader(own), ...dynamoAppTransitions(own) },
    };
    const chain = (await deps.trackers.read?.('hub'))?.chain?.chain;
    const message: TrackMessage = {
      type: 'track',
      cluster: 'hub',
      attempt: 0,
      ...(chain ? { chain } : {}),
      leaseHolders: { [sha]: lastHolder === 'work' ? work : lastHolder },
    };
    const result = await trackCluster(message, polled);
    return { sha, reader, result, reads: count.reads };
  }

  it("the first poll after a work item batches from its own read when the lease's last holder is that work item", async () => {
    const { sha, reader, result, reads } = await firstPollAfterWork('work');
    expect(result.changed).toBeGreaterThanOrEqual(30);
    expect(reads).toBe(1);
    expect((await reader.listApps(sha, 'hub')).every((a) => a.state === 'synced')).toBe(true);
  });

  it('reads the apps again when another holder took the lease after the work item its message names', async () => {
    let version = 0;
    const { sha, reader, result, reads } = await firstPollAfterWork('work', async (sha) => {
      // A redelivered work item: takes the lease after the first, writes app-7, releases it.
      const leases = dynamoClusterLeases(ref, 86_400);
      expect((await leases.acquire(sha, 'hub', 'delivery-1#1#9a2b', Date.now() + 60_000)).held).toBe(true);
      const app7 = (await dynamoRolloutReader(ref).listApps(sha, 'hub')).find((a) => a.name === 'app-7');
      version = (app7?.version ?? 0) + 1;
      expect(
        await dynamoRolloutWriter(ref, 86400).transition(
          sha,
          app('app-7'),
          { message: 'again' },
          app7?.version ?? 0,
        ),
      ).toBe('updated');
      await leases.release(sha, 'hub', 'delivery-1#1#9a2b');
    });
    expect(result.changed).toBeGreaterThanOrEqual(30);
    expect(reads).toBeGreaterThanOrEqual(2);
    const app7 = (await reader.listApps(sha, 'hub')).find((a) => a.name === 'app-7');
    expect(app7?.state).toBe('synced');
    expect(app7?.version).toBe(version + 1);
  });
});
