import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlEngine, createReleaseControl } from '../../../lib/release/control.js';
import type { ReleaseControl } from '../../../lib/release/ports.js';
import type { AppRecord, AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import type { WaveProgress } from '../../../lib/rollouts/rollout-model.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import { dynamoControlStore } from '../../../lib/store/control.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutSummary } from '../../../lib/store/rollout-summary.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const OPERATOR = 'arn:aws:iam::123456789012:role/operator';

interface Calls {
  release: string[];
  gate: { sha: string; skipFailed: boolean }[];
  retry: { sha: string; apps: readonly AppTarget[] }[];
}

let counter = 0;

describe('release control over the dynalite store', () => {
  let table: TestTable;
  let ref: TableRef;
  let calls: Calls;
  let control: ReleaseControl;
  const store = () => dynamoControlStore(ref);
  const engine = (): ControlEngine => ({
    release: async (sha) => {
      calls.release.push(sha);
    },
    gate: async (sha, options) => {
      calls.gate.push({ sha, skipFailed: options.skipFailed });
    },
    retry: async (sha, apps) => {
      calls.retry.push({ sha, apps });
    },
  });

  /** A rollout with one app per state given (`app-<i>` on cluster `c<i % 2>`), its status derived. */
  async function rollout(states: readonly AppState[], waves?: WaveProgress[]): Promise<string> {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'a');
    const meta: RolloutMeta = {
      sha,
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: '2026-12-01T11:00:00.000Z',
    };
    const writer = dynamoRolloutWriter(ref, 86400);
    await writer.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    for (const [i, state] of states.entries()) {
      const app: AppRecord = {
        cluster: `c${i % 2}`,
        namespace: 'argocd',
        name: `app-${i}`,
        kind: 'Application',
        state,
      };
      await writer.recordApp(meta, app);
    }
    await dynamoRolloutSummary(ref, 86_400).syncSummary(sha);
    if (waves !== undefined) await store().initWaves(sha, waves);
    return sha;
  }
  const summary = (sha: string) => dynamoRolloutReader(ref).summary(sha);

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => table.close());

  const fresh = (withEngine = true) => {
    calls = { release: [], gate: [], retry: [] };
    control = createReleaseControl({
      store: store(),
      apps: (sha) => dynamoRolloutReader(ref).listApps(sha),
      clock: { now: () => NOW },
      ...(withEngine ? engine() : {}),
    });
  };

  it('answers not-found for an unknown commit, whatever the action', async () => {
    fresh();
    const sha = 'f'.repeat(40);
    expect(await control.pause(sha, OPERATOR)).toEqual({ kind: 'not-found' });
    expect(await control.resume(sha, OPERATOR)).toEqual({ kind: 'not-found' });
    expect(await control.abort(sha, OPERATOR)).toEqual({ kind: 'not-found' });
    expect(await control.retry(sha, OPERATOR)).toEqual({ kind: 'not-found' });
  });

  it('pauses a running rollout once, recording who did it and when', async () => {
    fresh();
    const sha = await rollout(['synced', 'syncing', 'held']);
    expect(await control.pause(sha, OPERATOR)).toEqual({ kind: 'ok' });
    expect((await store().read(sha))?.paused).toBe(true);
    expect(await control.pause(sha, OPERATOR)).toEqual({
      kind: 'conflict',
      error: 'the rollout is paused already',
    });
    expect((await summary(sha))?.actions).toEqual([{ action: 'pause', by: OPERATOR, at: NOW.toISOString() }]);
  });

  it('refuses to pause or abort a rollout that has ended', async () => {
    fresh();
    const sha = await rollout(['synced', 'failed']);
    expect((await summary(sha))?.status).toBe('partial');
    expect(await control.pause(sha, 'local')).toEqual({
      kind: 'conflict',
      error: 'the rollout has ended (partial)',
    });
    expect(await control.abort(sha, 'local')).toEqual({
      kind: 'conflict',
      error: 'the rollout has ended (partial)',
    });
    expect((await summary(sha))?.actions).toBeUndefined();
  });

  it('resumes only a halted or paused rollout, clearing both, then gates and releases', async () => {
    fresh();
    const sha = await rollout(['synced', 'held']);
    expect(await control.resume(sha, 'token')).toEqual({
      kind: 'conflict',
      error: 'the rollout is neither halted nor paused',
    });
    expect(calls.gate).toEqual([]);
    await store().setFlag(sha, 'paused', true);
    await store().setFlag(sha, 'halted', true);
    expect(await control.resume(sha, 'token', { skipFailed: true })).toEqual({
      kind: 'ok',
      detail: 'skipFailed',
    });
    const state = await store().read(sha);
    expect(state?.paused).toBeUndefined();
    expect(state?.halted).toBeUndefined();
    expect(calls.gate).toEqual([{ sha, skipFailed: true }]);
    expect(calls.release).toEqual([sha]);
    expect((await summary(sha))?.actions).toEqual([
      { action: 'resume', by: 'token', at: NOW.toISOString(), detail: 'skipFailed' },
    ]);
  });

  it('passes skipFailed on only when the rollout was halted', async () => {
    fresh();
    const sha = await rollout(['held']);
    await store().setFlag(sha, 'paused', true);
    expect(await control.resume(sha, 'local', { skipFailed: true })).toEqual({ kind: 'ok' });
    expect(calls.gate).toEqual([{ sha, skipFailed: false }]);
  });

  it('lets only one of two racing resumes act', async () => {
    fresh();
    const sha = await rollout(['held']);
    await store().setFlag(sha, 'paused', true);
    const outcomes = await Promise.all([control.resume(sha, 'a'), control.resume(sha, 'b')]);
    expect(outcomes.filter((o) => o.kind === 'ok')).toHaveLength(1);
    expect(calls.release).toEqual([sha]);
  });

  it('aborts once: waiting waves end aborted, the open one stays, held apps are released', async () => {
    fresh();
    const waves: WaveProgress[] = [
      { name: 'canary', state: 'open', clusters: ['c0'] },
      { name: 'prod', state: 'waiting', clusters: ['c1'] },
      { name: 'rest', state: 'waiting', clusters: [] },
    ];
    const sha = await rollout(['syncing', 'held', 'held'], waves);
    expect(await control.abort(sha, OPERATOR)).toEqual({ kind: 'ok', detail: '2 waves' });
    const state = await store().read(sha);
    expect(state?.aborted).toBe(true);
    expect(state?.waves?.map((w) => w.state)).toEqual(['open', 'aborted', 'aborted']);
    expect(state?.waves?.[1]?.reason).toBe(`aborted by ${OPERATOR}`);
    expect(calls.release).toEqual([sha]);
    expect(await control.abort(sha, OPERATOR)).toEqual({
      kind: 'conflict',
      error: 'the rollout is aborted already',
    });
    expect(await control.pause(sha, OPERATOR)).toEqual({ kind: 'conflict', error: 'the rollout is aborted' });
    expect(await control.resume(sha, OPERATOR)).toEqual({
      kind: 'conflict',
      error: 'the rollout is aborted',
    });
    expect((await summary(sha))?.actions?.map((a) => a.action)).toEqual(['abort']);
  });

  it('retries the apps that ended blocked, error, timeout or failed, optionally only some', async () => {
    fresh();
    const sha = await rollout(['synced', 'failed', 'timeout', 'blocked', 'degraded', 'error']);
    expect(await control.retry(sha, OPERATOR, { cluster: 'c1' })).toEqual({ kind: 'ok', detail: '3 apps' });
    expect(calls.retry).toEqual([
      {
        sha,
        apps: [
          { cluster: 'c1', namespace: 'argocd', name: 'app-1', kind: 'Application' },
          { cluster: 'c1', namespace: 'argocd', name: 'app-3', kind: 'Application' },
          { cluster: 'c1', namespace: 'argocd', name: 'app-5', kind: 'Application' },
        ],
      },
    ]);
    expect(await control.retry(sha, OPERATOR)).toEqual({ kind: 'ok', detail: '4 apps' });
    expect(await control.retry(sha, OPERATOR, { name: 'app-3' })).toEqual({ kind: 'ok', detail: '1 app' });
    expect(await control.retry(sha, OPERATOR, { name: 'app-0' })).toEqual({
      kind: 'conflict',
      error: 'nothing to retry',
    });
    expect((await summary(sha))?.actions?.map((a) => a.detail)).toEqual(['3 apps', '4 apps', '1 app']);
  });

  it('without an engine writes the state only, and retry is not enabled', async () => {
    fresh(false);
    const sha = await rollout(['failed', 'held']);
    expect(await control.pause(sha, 'local')).toEqual({ kind: 'ok' });
    expect(await control.resume(sha, 'local')).toEqual({ kind: 'ok' });
    expect(await control.retry(sha, 'local')).toEqual({ kind: 'conflict', error: 'retrying is not enabled' });
  });

  it('keeps who acted on record when the engine call fails after the state changed', async () => {
    fresh();
    const sha = await rollout(['held']);
    await store().setFlag(sha, 'halted', true);
    const failing = createReleaseControl({
      store: store(),
      apps: (s) => dynamoRolloutReader(ref).listApps(s),
      clock: { now: () => NOW },
      gate: async () => {
        throw new Error('queue unavailable');
      },
    });
    await expect(failing.resume(sha, OPERATOR)).rejects.toThrow('queue unavailable');
    expect((await store().read(sha))?.halted).toBeUndefined();
    expect((await summary(sha))?.actions?.map((a) => [a.action, a.by])).toEqual([['resume', OPERATOR]]);
  });
});
