import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { type SweepDeps, sweepRollouts } from '../../../lib/rollouts/sweep.js';
import { GetCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { OPEN_PK } from '../../../lib/store/keys.js';
import { dynamoOpenRollouts } from '../../../lib/store/open-rollouts.js';
import { dynamoReleaseRecords } from '../../../lib/store/release-records.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const web: AppTarget = { cluster: 'hub', namespace: 'argocd', name: 'web', kind: 'Application' };
const GRACE_SECONDS = 120;

let counter = 0;

/**
 * A rollout the sweep closed (its status was final) can be revived by a later event: a retry of its
 * failed apps, a catch-up or rollback push, a release. The sweep runs every minute and must find it again.
 */
describe('the sweep and a revived rollout', () => {
  let table: TestTable;
  let ref: TableRef;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => table.close());

  /** A rollout of one app that ended in `error`, its summary synced; the clock at its start. */
  async function endedRollout() {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'a');
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
    const open = dynamoOpenRollouts(ref, 86_400);
    const deadline = new Date(nowMs + 600_000).toISOString();
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops', deadline });
    await open.open(sha, deadline);
    await writer.recordApp(meta, { ...web, state: 'error', message: 'cannot patch', decision: 'error' });
    await writer.syncSummary(sha);
    expect((await reader.summary(sha))?.status).toBe('failed');
    const deps: SweepDeps = {
      open,
      rollouts: { ...reader, ...writer },
      trackers: dynamoClusterTrackers(ref, 86_400),
      trackQueue: new MemoryQueue<TrackMessage>('track'),
      clusters: ['hub'],
      notify: async () => {},
      clock,
      logger: createMemoryLogger(),
      graceSeconds: GRACE_SECONDS,
      chainLeaseSeconds: 120,
    };
    /** What a retry's work item does to the app (lib/rollouts/app-refresh.ts): claim it again, sync. */
    const retry = async () => {
      const [app] = await reader.listApps(sha, 'hub');
      const claimed = await writer.claimApp(
        meta,
        {
          ...web,
          state: 'matched',
          decision: 'refreshed',
          claimedAt: clock.now().toISOString(),
          message: 'refreshing',
        },
        app?.version,
      );
      expect(claimed).toBeDefined();
      await writer.syncSummary(sha, 'hub');
    };
    const advance = (seconds: number) => {
      nowMs += seconds * 1000;
    };
    return { sha, deps, reader, open, retry, advance, clock };
  }

  it('finishes a rollout revived by a retry after the sweep closed it', async () => {
    const w = await endedRollout();
    await sweepRollouts(w.deps);
    expect(await w.open.list()).toEqual([]);

    await w.retry();
    expect((await w.reader.summary(w.sha))?.status).toBe('pending');

    // Tracking stopped (its message was lost); the deadline and the grace pass, the sweep runs.
    w.advance(600 + GRACE_SECONDS + 60);
    const report = await sweepRollouts(w.deps);
    expect(report.finished).toBe(1);
    const [app] = await w.reader.listApps(w.sha, 'hub');
    expect(app?.state).toBe('timeout');
    expect((await w.reader.summary(w.sha))?.status).not.toBe('in-progress');
  });

  it('keeps a rollout revived while the sweep was closing it', async () => {
    const w = await endedRollout();
    const records = dynamoReleaseRecords(ref);
    // A release revives it between the sweep's read of its (final) summary and the sweep's close:
    // its deadline restarts and it is opened again (lib/release/engine.ts restartDeadline).
    const revived = new Date(w.clock.now().getTime() + 1_200_000).toISOString();
    let revive = true;
    const racing: SweepDeps = {
      ...w.deps,
      rollouts: {
        ...w.deps.rollouts,
        async summary(sha) {
          const seen = await w.deps.rollouts.summary(sha);
          if (revive) {
            revive = false;
            await w.retry();
            await records.extendDeadline(sha, revived);
            await w.open.open(sha, revived);
          }
          return seen;
        },
      },
    };
    await sweepRollouts(racing);
    expect((await w.open.list()).map((o) => o.sha)).toEqual([w.sha]);

    w.advance(1_200 + GRACE_SECONDS + 60);
    expect((await sweepRollouts(w.deps)).finished).toBe(1);
    expect((await w.reader.listApps(w.sha, 'hub'))[0]?.state).toBe('timeout');
  });

  it('gives an open rollout an expiry as long as its records live, renewed by every open', async () => {
    const open = dynamoOpenRollouts(ref, 86_400);
    const sha = 'b'.repeat(40);
    const expiry = async () =>
      Number(
        (await ref.doc.send(new GetCommand({ TableName: ref.tableName, Key: { pk: OPEN_PK, sk: sha } }))).Item
          ?.expiresAt,
      );
    const before = Math.floor(Date.now() / 1000);
    await open.open(sha, '2026-12-03T10:00:00Z');
    const first = await expiry();
    expect(first).toBeGreaterThanOrEqual(before + 86_400);
    expect(first).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86_400);
    await new Promise((r) => setTimeout(r, 1100));
    await open.open(sha, '2026-12-03T11:00:00Z');
    expect(await expiry()).toBeGreaterThan(first);
    expect((await open.list()).find((o) => o.sha === sha)?.opens).toBe(2);
  });
});
