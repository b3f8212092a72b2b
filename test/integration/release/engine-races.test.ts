import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/logger.js';
import type { BatchEntry, Queue, SendOptions } from '../../../lib/ports.js';
import type { FanoutMessage } from '../../../lib/queue/messages.js';
import { createReleaseControl } from '../../../lib/release/control.js';
import { createReleaseEngine } from '../../../lib/release/engine.js';
import type { ReleaseWave } from '../../../lib/release/wave-judge.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { dynamoControlStore } from '../../../lib/store/control.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoOpenRollouts } from '../../../lib/store/open-rollouts.js';
import { dynamoReleaseRecords } from '../../../lib/store/release-records.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

/** A queue that keeps what it is given (the engine's sends are what these tests count). */
function recordingQueue() {
  const sent: { message: FanoutMessage; delaySeconds?: number }[] = [];
  const queue: Queue<FanoutMessage> = {
    async send(message: FanoutMessage, options?: SendOptions) {
      sent.push({
        message,
        ...(options?.delaySeconds === undefined ? {} : { delaySeconds: options.delaySeconds }),
      });
    },
    async sendBatch(entries: readonly BatchEntry<FanoutMessage>[]) {
      for (const entry of entries) sent.push({ message: entry.message });
    },
  };
  return { queue, sent };
}

const WAVES: ReleaseWave[] = [
  { name: 'canary', clusters: ['spoke-a'], soakMs: 0, maxUnhealthy: { count: 0 } },
  { name: 'rest', clusters: ['spoke-b'], soakMs: 0, maxUnhealthy: { count: 0 } },
];

/**
 * The engine's moves on real stores (dynalite): the gate judged by many at once (pollers of every cluster,
 * the sweep, a gate message) opens a wave exactly once, and the sweep alone opens it when every track
 * message that would have was lost.
 */
describe('release control under racing pollers and lost messages (dynalite)', () => {
  let table: TestTable;
  let ref: TableRef;
  let n = 0;
  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => table.close());

  /** A rollout whose canary apps are in the given states and whose rest app is held. */
  async function rollout(canary: AppState[]) {
    n += 1;
    const sha = n.toString(16).padStart(40, 'c');
    const writer = dynamoRolloutWriter(ref, 86400);
    const meta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook' as const,
      receivedAt: '2026-12-02T10:00:00.000Z',
    };
    await writer.start({
      ...meta,
      repoUrl: 'https://github.com/org/gitops',
      pushEvent: {
        provider: 'github',
        deliveryId: 'd-1',
        repo: { fullName: 'org/gitops', webUrl: 'https://github.com/org/gitops', urls: [] },
        ref: 'refs/heads/main',
        refType: 'branch',
        refName: 'main',
        before: '0'.repeat(40),
        after: sha,
        touchedDefaultBranch: true,
        created: false,
        deleted: false,
        forced: false,
        author: { name: 'dev' },
        commitTitle: 'x',
        receivedAt: meta.receivedAt,
      },
    });
    await writer.planClusters(sha, ['hub']);
    await writer.recordCluster(sha, 'hub', 'done');
    const app = (name: string, state: AppState, wave: string) => ({
      cluster: 'hub',
      namespace: 'argocd',
      name,
      kind: 'Application' as const,
      state,
      wave,
      finishedAt: '2026-12-02T10:01:00.000Z',
    });
    for (const [i, state] of canary.entries())
      await writer.recordApp(meta, app(`canary-${i}`, state, 'canary'));
    await writer.recordApp(meta, app('rest-0', 'held', 'rest'));
    await writer.syncSummary(sha);
    return sha;
  }

  function engine() {
    const { queue, sent } = recordingQueue();
    const control = dynamoControlStore(ref);
    const release = createReleaseEngine({
      control,
      records: dynamoReleaseRecords(ref),
      open: dynamoOpenRollouts(ref, 86_400),
      queue,
      waves: () => WAVES,
      clock: { now: () => new Date('2026-12-02T10:05:00.000Z') },
      logger: createLogger({ level: 'ERROR' }),
      trackDeadlineSeconds: 600,
    });
    return { release, control, sent };
  }

  it('opens the next wave exactly once when ten pollers and the sweep see its gate at the same moment', async () => {
    const sha = await rollout(['synced', 'synced']);
    const { release, control, sent } = engine();
    await release.initWaves(sha);
    const outcomes = await Promise.all(Array.from({ length: 11 }, () => release.advance(sha)));
    expect(outcomes.filter((o) => o.opened === 'rest')).toHaveLength(1);
    const state = await control.read(sha);
    expect(state?.waves?.map((w) => w.state)).toEqual(['done', 'open']);
    expect(state?.waves?.[1]?.openedAt).toBeDefined();
    // One release (one work item for the rollout's one cluster), one open-wave action.
    const releases = sent.filter((s) => s.message.type === 'cluster' && s.message.release === true);
    expect(releases).toHaveLength(1);
    const summary = await dynamoReleaseRecords(ref).viewSummary(sha);
    expect(summary?.actions?.filter((a) => a.action === 'open-wave')).toHaveLength(1);
  });

  it('the sweep opens a wave whose track message was lost (no poller ever judged the gate)', async () => {
    const sha = await rollout(['synced']);
    const { release, sent } = engine();
    await release.initWaves(sha);
    // No track poll: only the sweep's call, as reconcile makes it every pass.
    expect(await release.advanceQuietly(sha)).toEqual({ sha, opened: 'rest' });
    expect(sent.some((s) => s.message.type === 'cluster' && s.message.release === true)).toBe(true);
    // The next pass finds nothing to do: the rest wave waits on its own (held) app.
    expect(await release.advanceQuietly(sha)).toEqual({ sha });
  });

  it('halts once when pollers race on an unhealthy canary, and holds the rest', async () => {
    const sha = await rollout(['synced', 'failed']);
    const { release, control, sent } = engine();
    await release.initWaves(sha);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => release.advance(sha)));
    expect(outcomes.some((o) => o.halted === 'canary')).toBe(true);
    const state = await control.read(sha);
    expect(state?.halted).toBe(true);
    expect(state?.status).toBe('halted');
    expect(state?.waves?.map((w) => w.state)).toEqual(['halted', 'waiting']);
    expect(sent.filter((s) => s.message.type === 'cluster')).toHaveLength(0);
    const summary = await dynamoReleaseRecords(ref).viewSummary(sha);
    expect(summary?.actions?.filter((a) => a.action === 'halt')).toHaveLength(1);
  });

  it('a resume with skipFailed while a canary app still moves holds: the poll that sees it end opens the next wave', async () => {
    const sha = await rollout(['failed', 'syncing']);
    const { release, control, sent } = engine();
    await release.initWaves(sha);
    expect(await release.advance(sha)).toEqual({ sha, halted: 'canary' });
    const operator = createReleaseControl({
      store: control,
      apps: (s) => dynamoRolloutReader(ref).listApps(s),
      clock: { now: () => new Date('2026-12-02T10:05:00.000Z') },
      gate: async (s, options) => {
        await release.onGate({ type: 'gate', sha: s, ...(options.skipFailed ? { skipFailed: true } : {}) });
      },
    });
    expect((await operator.resume(sha, 'token', { skipFailed: true })).kind).toBe('ok');
    // canary-1 still syncs: the gate message waits, and the wave keeps the operator's word.
    let state = await control.read(sha);
    expect(state?.halted).toBeUndefined();
    expect(state?.waves?.[0]).toMatchObject({ state: 'halted', skipFailed: true });
    // It ends; a poll (no skipFailed of its own) judges the wave again: it passes instead of halting anew.
    const writer = dynamoRolloutWriter(ref, 86400);
    const moving = (await dynamoRolloutReader(ref).listApps(sha)).find((a) => a.name === 'canary-1');
    const target = { cluster: 'hub', namespace: 'argocd', name: 'canary-1', kind: 'Application' as const };
    await writer.transition(sha, target, { state: 'synced' }, moving?.version ?? 0);
    await writer.syncSummary(sha);
    expect(await release.advance(sha)).toEqual({ sha, opened: 'rest' });
    state = await control.read(sha);
    expect(state?.halted).toBeUndefined();
    expect(state?.waves?.map((w) => w.state)).toEqual(['done', 'open']);
    expect(sent.some((s) => s.message.type === 'cluster' && s.message.release === true)).toBe(true);
  });

  it('a newer commit during a soak: the older rollout’s waiting wave ends superseded and its held apps are released to end', async () => {
    const older = await rollout(['synced']);
    const { release, control, sent } = engine();
    await release.initWaves(older);
    const newer = 'f'.repeat(40);
    expect(await release.supersede(older, newer)).toBe(1);
    const state = await control.read(older);
    expect(state?.waves?.[1]).toMatchObject({
      state: 'superseded',
      reason: `superseded by ${newer.slice(0, 12)}`,
    });
    expect(sent.some((s) => s.message.type === 'cluster' && s.message.release === true)).toBe(true);
    // Superseding again changes nothing.
    expect(await release.supersede(older, newer)).toBe(0);
    // The gate never opens a superseded wave.
    expect(await release.advance(older)).toEqual({ sha: older });
  });

  it('the sweep releases only the held apps an open wave holds (a waiting wave waits for its gate)', async () => {
    const waiting = await rollout(['syncing']);
    const { release, sent } = engine();
    await release.initWaves(waiting);
    // Only the rest wave (waiting) holds apps: nothing to release.
    expect(await release.sweepHeld(waiting)).toBe(0);
    expect(sent).toEqual([]);
    // A canary app held by something else (a freeze): the sweep looks at its cluster again.
    const frozen = await rollout(['synced', 'held']);
    await release.initWaves(frozen);
    expect(await release.sweepHeld(frozen)).toBe(1);
    expect(sent.filter((s) => s.message.type === 'cluster' && s.message.release === true)).toHaveLength(1);
  });
});
