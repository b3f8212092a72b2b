import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { sweepRollouts } from '../../../lib/rollouts/sweep.js';
import { liveKey, type TrackDeps, type TrackResult, trackCluster } from '../../../lib/rollouts/track.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoOpenRollouts } from '../../../lib/store/open-rollouts.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { faultQueue } from '../../helpers/fault-queue.js';
import { application, startTestCluster, type TestCluster } from '../../helpers/simulator.js';

/**
 * Track chains under at-least-once delivery: the chain lease (seconds) is shorter than the track queue's
 * visibility timeout (360 s), so a failed poll's message comes back after the sweep has already started a
 * second chain. Only one of them may keep polling the cluster.
 */
const LEASE_SECONDS = 120;
const VISIBILITY_SECONDS = 360;

let counter = 0;

describe('track chains on one cluster', () => {
  let table: TestTable;
  let ref: ReturnType<typeof createTableRef>;
  let cluster: TestCluster;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    cluster = await startTestCluster({ name: 'hub' });
  });
  afterAll(async () => {
    await cluster.close();
    await table.close();
  });

  /** A rollout of one app on a fresh cluster name, its live Application mid-sync (so it stays in flight). */
  async function world() {
    counter += 1;
    const name = `chain-${counter}`;
    const sha = counter.toString(16).padStart(40, 'c');
    let nowMs = Date.parse('2026-12-02T10:00:00Z') + counter * 86_400_000;
    const clock = { now: () => new Date(nowMs) };
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: clock.now().toISOString(),
    };
    const writer = dynamoRolloutWriter(ref, 86_400);
    const reader = dynamoRolloutReader(ref);
    const deadline = new Date(nowMs + 3_600_000).toISOString();
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops', deadline });
    await writer.recordApp(meta, {
      cluster: name,
      namespace: 'argocd',
      name,
      kind: 'Application',
      state: 'refreshed',
      revision: 'old',
    });
    const live = application(name);
    cluster.server.store.create(APPLICATIONS, {
      ...live,
      status: {
        sync: { status: 'OutOfSync', revision: 'old' },
        health: { status: 'Progressing' },
        operationState: { phase: 'Running', operation: { sync: { revision: sha } } },
      },
    } as never);
    const trackers = dynamoClusterTrackers(ref, 86_400);
    const memory = new MemoryQueue<TrackMessage>('track', () => nowMs);
    const queue = faultQueue(memory);
    const lists = () =>
      cluster.server.requests.all().filter((r) => r.verb === 'list' && r.resource === 'applications').length;
    const deps: TrackDeps = {
      rollouts: { ...reader, ...writer },
      trackers,
      refPushes: { recent: async () => [] },
      live: {
        async listTargets() {
          const list = await cluster.api.list(APPLICATIONS, 'argocd');
          const objects = new Map<string, unknown>();
          for (const item of list.items) {
            const meta = (item as { metadata: { namespace: string; name: string } }).metadata;
            if (meta.name === name) objects.set(liveKey('Application', meta.namespace, meta.name), item);
          }
          return objects;
        },
      },
      notify: async () => {},
      queue,
      clock,
      logger: createMemoryLogger(),
      intervalSeconds: 5,
      maxIntervalSeconds: 60,
      chainLeaseSeconds: LEASE_SECONDS,
    };
    const sweep = () =>
      sweepRollouts({
        open: dynamoOpenRollouts(ref, 86_400),
        rollouts: { ...reader, ...writer },
        trackers,
        trackQueue: queue,
        clusters: [name],
        notify: async () => {},
        clock,
        logger: createMemoryLogger(),
        graceSeconds: 120,
        chainLeaseSeconds: LEASE_SECONDS,
      });
    /** What fan-out does when it starts tracking (lib/rollouts/cluster-work.ts): register as it claims, send. */
    const startTracking = async () => {
      const claimed = await trackers.claimChain(
        name,
        new Date(nowMs + LEASE_SECONDS * 1000).toISOString(),
        clock.now(),
        sha,
      );
      expect(claimed).toBeTruthy();
      await queue.send({ type: 'track', cluster: name, attempt: 0 }, { delaySeconds: 5 });
    };
    let renewals = 0;
    let relists = 0;
    let unregisters = 0;
    let beforeUnregister: (() => Promise<void>) | undefined;
    const counted: TrackDeps = {
      ...deps,
      trackers: {
        ...trackers,
        renewChain: (...args) => {
          renewals += 1;
          return trackers.renewChain(...args);
        },
        list: (...args) => {
          relists += 1;
          return trackers.list(...args);
        },
        unregister: async (...args) => {
          unregisters += 1;
          await beforeUnregister?.();
          return trackers.unregister(...args);
        },
        endChain: async (...args) => {
          await beforeUnregister?.();
          return (await trackers.endChain?.(...args)) ?? false;
        },
      },
    };
    const poll = (message: TrackMessage) => trackCluster(message, counted);
    return {
      name,
      sha,
      trackers,
      renewals: () => renewals,
      relists: () => relists,
      unregisters: () => unregisters,
      /** Runs `hook` when the poll drops a registration or ends the chain (after its read, before its write). */
      onUnregister: (hook: () => Promise<void>) => {
        beforeUnregister = hook;
      },
      /** Argo CD ends the app's sync at the pushed commit. */
      synced: () =>
        cluster.server.store.update(APPLICATIONS, 'argocd', name, (draft) => {
          (draft as { status?: unknown }).status = {
            sync: { status: 'Synced', revision: sha },
            health: { status: 'Healthy' },
            operationState: {
              phase: 'Succeeded',
              operation: { sync: { revision: sha } },
              syncResult: { revision: sha },
            },
          };
        }),
      queue,
      lists,
      sweep,
      startTracking,
      poll,
      /** The world's time (every store call here is stamped with it, never the machine's). */
      now: () => clock.now(),
      advance: (seconds: number) => {
        nowMs += seconds * 1000;
      },
      /** The messages the queue holds (what a consumer would receive once they are due). */
      take: () => memory.takeAll(),
    };
  }

  it('lets one chain poll when a failed poll is redelivered after the sweep restarted the chain', async () => {
    const w = await world();
    const drain = () => w.take();

    await w.startTracking();
    w.advance(5);
    const [first] = drain();
    expect(first).toBeDefined();
    expect((await w.poll(first as TrackMessage)).requeued).toBe(true);

    // The next poll fails: its send of the poll after it is refused, so the handler throws and SQS keeps
    // the message invisible for the visibility timeout before handing it out again.
    w.advance(5);
    const [second] = drain();
    expect(second).toBeDefined();
    w.queue.failNextSends(1);
    await expect(w.poll(second as TrackMessage)).rejects.toThrow(/Service Unavailable/);
    const failedAt = 10;

    // The sweep runs every minute; once the chain's lease has run out it starts a chain again.
    let t = failedAt;
    let restarted = false;
    while (t < failedAt + LEASE_SECONDS + 60) {
      w.advance(60);
      t += 60;
      const report = await w.sweep();
      if (report.chainsRestarted.length > 0) restarted = true;
    }
    expect(restarted).toBe(true);

    // Polls every 10 s until well past the redelivery; the redelivered message joins once it is visible.
    let redelivered = false;
    const perRound: { messages: number; lists: number }[] = [];
    const outcomes: TrackResult[] = [];
    while (t < failedAt + VISIBILITY_SECONDS + 120) {
      w.advance(10);
      t += 10;
      const round = drain();
      if (!redelivered && t >= failedAt + VISIBILITY_SECONDS) {
        round.push(second as TrackMessage);
        redelivered = true;
      }
      const before = w.lists();
      for (const message of round) outcomes.push(await w.poll(message));
      perRound.push({ messages: round.length, lists: w.lists() - before });
    }
    expect(redelivered).toBe(true);
    // One chain: every round after the redelivery polls the cluster once, with one message in the queue.
    const afterRedelivery = perRound.slice(-10);
    expect(afterRedelivery.map((r) => r.lists)).toEqual(Array(10).fill(1));
    expect(afterRedelivery.map((r) => r.messages)).toEqual(Array(10).fill(1));
    // The other chain (the redelivered message's) stopped at once, without a LIST.
    expect(outcomes.filter((o) => !o.requeued)).toEqual([
      { rollouts: 0, changed: 0, unfinished: 0, requeued: false, superseded: true },
    ]);
  });

  it('lets one chain go on when the first message of a claim is delivered twice', async () => {
    const w = await world();
    await w.startTracking();
    w.advance(5);
    const [first] = w.take();
    expect(first).toBeDefined();
    const results = [await w.poll(first as TrackMessage), await w.poll(first as TrackMessage)];
    expect(results.map((r) => r.requeued).sort()).toEqual([false, true]);
    w.advance(10);
    expect(w.take()).toHaveLength(1);
  });

  it('renews the chain lease only when it would not last past the next poll, and the sweep never restarts it', async () => {
    const w = await world();
    await w.startTracking();
    let polls = 0;
    let restarts = 0;
    // Ten minutes of polls as the chain sends them (backoff up to 60 s), the sweep every minute between them.
    for (let t = 0; t < 600; ) {
      const [message] = w.take();
      expect(message).toBeDefined();
      const result = await w.poll(message as TrackMessage);
      expect(result.superseded).toBeUndefined();
      expect(result.requeued).toBe(true);
      polls += 1;
      const step = Math.max(5, Math.min(60, Math.round(t / 4)));
      w.advance(step);
      t += step;
      restarts += (await w.sweep()).chainsRestarted.length;
    }
    expect(restarts).toBe(0);
    // The first poll after the claim renews (it marks the claim taken); later ones only when lease runs short.
    expect(w.renewals()).toBeGreaterThan(0);
    expect(w.renewals()).toBeLessThan(polls);
  });

  it('ends the chain with the rollout in one write: the registration dropped with the release, nothing read again', async () => {
    const w = await world();
    await w.startTracking();
    w.advance(5);
    w.synced();
    const [message] = w.take();
    const result = await w.poll(message as TrackMessage);
    expect(result).toMatchObject({ rollouts: 1, unfinished: 0, requeued: false });
    expect(w.relists()).toBe(0);
    expect(w.unregisters()).toBe(0);
    expect(await w.trackers.read?.(w.name)).toMatchObject({ registered: [], chain: { polled: false } });
    expect((await w.trackers.read?.(w.name))?.chain?.leaseUntil).toBeUndefined();
  });

  it('polls a rollout registered while the chain’s last poll was ending it: the chain goes on', async () => {
    const w = await world();
    await w.startTracking();
    w.advance(5);
    w.synced();
    const other = 'f'.repeat(40);
    let claimed: string | undefined = 'not claimed';
    // Fan-out of another commit registers on the cluster after the poll's read; its claim finds the chain
    // alive, so it sends no message of its own and counts on this chain to poll it.
    w.onUnregister(async () => {
      w.onUnregister(async () => {});
      await w.trackers.register(w.name, other, w.now());
      const until = new Date(w.now().getTime() + 120_000).toISOString();
      claimed = await w.trackers.claimChain(w.name, until, w.now());
    });
    const [message] = w.take();
    const result = await w.poll(message as TrackMessage);
    expect(claimed).toBeUndefined();
    expect(result).toMatchObject({ unfinished: 0, requeued: true });
    w.advance(5);
    const [next] = w.take();
    expect(next).toBeDefined();
    // The next poll of the same chain polls the other rollout (it has no apps here yet, so it drops it).
    expect(await w.poll(next as TrackMessage)).toMatchObject({ rollouts: 1, requeued: false });
  });

  it('lets the sweep leave a live chain untouched, so its end is not delayed by a poll', async () => {
    const w = await world();
    await w.startTracking();
    w.advance(5);
    const before = (await w.trackers.read?.(w.name))?.chain?.touched;
    expect((await w.sweep()).chainsRestarted).toEqual([]);
    expect((await w.trackers.read?.(w.name))?.chain?.touched).toBe(before);
  });
});
