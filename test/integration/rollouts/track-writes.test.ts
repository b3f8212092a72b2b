import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { systemClock } from '../../../lib/ports.js';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { ClusterTrackers } from '../../../lib/rollouts/ports/cluster-trackers.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { liveKey, type TrackDeps, trackCluster } from '../../../lib/rollouts/track.js';
import { dynamoAppTransitions } from '../../../lib/store/app-transitions.js';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const app = (name: string): AppTarget => ({ cluster: 'hub', namespace: 'argocd', name, kind: 'Application' });

/** A live Application syncing to `sha` (not ended), or one whose sync to it failed (an end). */
const live = (name: string, sha: string, phase: 'Running' | 'Failed') => ({
  metadata: { name, namespace: 'argocd' },
  status: {
    sync: { status: 'OutOfSync', revision: 'old' },
    health: { status: phase === 'Running' ? 'Progressing' : 'Degraded' },
    operationState: {
      phase,
      message: phase === 'Failed' ? 'one or more objects failed to apply' : 'syncing',
      ...(phase === 'Failed' ? { finishedAt: new Date().toISOString() } : {}),
      syncResult: { revision: sha },
      operation: { sync: { revision: sha } },
    },
  },
});

/** The table as `ref`, but every BatchWriteItem waits for `open()` first (a slow writer, made slow here). */
function gatedBatches(ref: TableRef) {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached: () => void = () => undefined;
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const doc = new Proxy(ref.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        if (command.constructor.name === 'BatchWriteCommand') {
          reached();
          await opened;
        }
        return (target.send as (...args: unknown[]) => Promise<unknown>).call(target, command, ...rest);
      };
    },
  });
  return { ref: { ...ref, doc } as TableRef, open, waiting };
}

let counter = 0;

describe('track writes of two pollers on one cluster', () => {
  let table: TestTable;
  let ref: TableRef;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => table.close());

  it('never lets a stale batch overwrite the end another poll wrote meanwhile', async () => {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'e');
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: new Date().toISOString(),
    };
    const writer = dynamoRolloutWriter(ref, 86_400);
    const reader = dynamoRolloutReader(ref);
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    const names = Array.from({ length: 12 }, (_, i) => `app-${i}`);
    for (const name of names)
      await writer.recordApp(meta, { ...app(name), state: 'refreshed', revision: 'old' });
    const trackers = dynamoClusterTrackers(ref, 86_400);
    await trackers.register('hub', sha, new Date());
    // Two pollers of one cluster at once (what a duplicate chain was): the chain check is not under test
    // here, so both are let through it.
    const either: ClusterTrackers = { ...trackers, renewChain: async (_c, chain) => chain ?? 'test' };
    const deps = (table: TableRef, objects: ReadonlyMap<string, unknown> | Error): TrackDeps => ({
      rollouts: { ...reader, ...dynamoRolloutWriter(table, 86_400), ...dynamoAppTransitions(table) },
      leases: dynamoClusterLeases(table, 86_400),
      trackers: either,
      refPushes: { recent: async () => [] },
      live: {
        listTargets: async () => {
          if (objects instanceof Error) throw objects;
          return objects;
        },
      },
      notify: async () => {},
      queue: new MemoryQueue<TrackMessage>('track'),
      clock: systemClock,
      logger: createMemoryLogger(),
      intervalSeconds: 1,
      maxIntervalSeconds: 5,
      chainLeaseSeconds: 60,
    });
    const key = (name: string) => liveKey('Application', 'argocd', name);
    const syncing = new Map(names.map((n) => [key(n), live(n, sha, 'Running')]));
    const message: TrackMessage = { type: 'track', cluster: 'hub', attempt: 1 };
    expect((await trackCluster(message, deps(ref, syncing))).changed).toBe(12);

    // A cannot read the cluster: it notes that on all 12 apps, in a batch. B reads it: app-0's sync failed.
    const seenByB = new Map([...syncing, [key('app-0'), live('app-0', sha, 'Failed')]]);
    const slow = gatedBatches(ref);
    const a = trackCluster(message, deps(slow.ref, new Error('connect ECONNREFUSED')));
    await slow.waiting; // A has read the apps (under the lease) and is about to put its batch.
    const b = await trackCluster(message, deps(ref, seenByB));
    slow.open();
    const aResult = await a;

    const stored = new Map((await reader.listApps(sha, 'hub')).map((x) => [x.name, x]));
    // Every write a poller counts as done is a step of the app's version: none was lost under another.
    const wroteApp0 = (aResult.changed > 0 ? 1 : 0) + b.changed;
    expect(stored.get('app-0')?.version).toBe(2 + wroteApp0);
    expect(stored.get('app-0')?.state).toBe(b.changed > 0 ? 'failed' : 'syncing');

    // The next poll that sees the end records it: it is never lost for good.
    expect((await trackCluster(message, deps(ref, seenByB))).changed).toBeGreaterThan(0);
    expect((await reader.listApps(sha, 'hub')).find((x) => x.name === 'app-0')?.state).toBe('failed');
  });
});

describe('the requests of one track poll', () => {
  let table: TestTable;
  let ref: TableRef;

  // A table of its own for each case: the poll reads only that rollout's records.
  beforeEach(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterEach(async () => table.close());

  /** Every DynamoDB command sent through `ref`, by name. */
  function counted(ref: TableRef) {
    const names: string[] = [];
    const doc = new Proxy(ref.doc, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
          names.push(command.constructor.name);
          return (target.send as (...args: unknown[]) => Promise<unknown>).call(target, command, ...rest);
        };
      },
    });
    return { ref: { ...ref, doc } as TableRef, names };
  }

  it.each([1, 2, 3, 24, 60])('writes %i changes in at most 3 requests plus one batch per 25', async (n) => {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'f');
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: new Date().toISOString(),
    };
    const writer = dynamoRolloutWriter(ref, 86_400);
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    const names = Array.from({ length: n }, (_, i) => `app-${i}`);
    for (const name of names)
      await writer.recordApp(meta, { ...app(name), state: 'refreshed', revision: 'old' });
    const trackers = dynamoClusterTrackers(ref, 86_400);
    await trackers.register('hub', sha, new Date());
    const objects = new Map(names.map((x) => [liveKey('Application', 'argocd', x), live(x, sha, 'Running')]));
    const { ref: seen, names: sent } = counted(ref);
    const result = await trackCluster(
      { type: 'track', cluster: 'hub', attempt: 1 },
      {
        rollouts: {
          ...dynamoRolloutReader(seen),
          ...dynamoRolloutWriter(seen, 86_400),
          ...dynamoAppTransitions(seen),
        },
        leases: dynamoClusterLeases(seen, 86_400),
        trackers: {
          ...dynamoClusterTrackers(seen, 86_400),
          renewChain: async (_c, chain) => chain ?? 'test',
        },
        refPushes: { recent: async () => [] },
        live: { listTargets: async () => objects },
        notify: async () => {},
        queue: new MemoryQueue<TrackMessage>('track'),
        clock: systemClock,
        logger: createMemoryLogger(),
        intervalSeconds: 1,
        maxIntervalSeconds: 5,
        chainLeaseSeconds: 60,
      },
    );
    expect(result.changed).toBe(n);
    // The write phase: the lease (a conditional put), then the read under it and the batches, the last of
    // which releases the lease; or one conditional update per change below the batch size, then the
    // lease's release (an update).
    const lease = sent.indexOf('PutCommand');
    const batches = Math.ceil(n / 25);
    if (n >= 3) {
      const writes = sent.slice(lease, sent.lastIndexOf('BatchWriteCommand') + 1);
      expect(writes).toEqual(['PutCommand', 'QueryCommand', ...Array(batches).fill('BatchWriteCommand')]);
    } else {
      const release = sent.indexOf('UpdateCommand', lease + 1 + n);
      const writes = sent.slice(lease, release + 1);
      expect(writes).toEqual(['PutCommand', ...Array(n).fill('UpdateCommand'), 'UpdateCommand']);
    }
  });
});
