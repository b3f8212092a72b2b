import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlStore } from '../../../lib/release/ports.js';
import type { WaveProgress } from '../../../lib/rollouts/rollout-model.js';
import { dynamoControlStore, MAX_ACTIONS } from '../../../lib/store/control.js';
import { GetCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { rolloutPk, SUMMARY_SK } from '../../../lib/store/keys.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const WAVES: WaveProgress[] = [
  { name: 'canary', state: 'open', clusters: ['staging-1'], openedAt: '2026-12-01T10:00:00.000Z' },
  { name: 'prod', state: 'waiting', clusters: ['prod-eu', 'prod-us'] },
];

let counter = 0;

describe('release control state on the rollout summary (dynalite)', () => {
  let table: TestTable;
  let ref: TableRef;
  let store: ControlStore;
  const rollout = async () => {
    counter += 1;
    const sha = counter.toString(16).padStart(40, 'd');
    await dynamoRolloutWriter(ref, 86400).start({
      sha,
      repo: 'org/gitops',
      repoUrl: 'https://github.com/org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: '2026-12-01T10:00:00.000Z',
    });
    return sha;
  };
  const item = async (sha: string) =>
    (
      await ref.doc.send(
        new GetCommand({ TableName: ref.tableName, Key: { pk: rolloutPk(sha), sk: SUMMARY_SK } }),
      )
    ).Item ?? {};

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    store = dynamoControlStore(ref);
  });
  afterAll(async () => table.close());

  it('reads nothing for an unknown commit, and the status with no control state for a new rollout', async () => {
    expect(await store.read('f'.repeat(40))).toBeUndefined();
    const sha = await rollout();
    expect(await store.read(sha)).toEqual({ status: 'pending' });
  });

  it('writes the waves once: a second initWaves (a redelivered push) keeps the first', async () => {
    const sha = await rollout();
    await store.initWaves(sha, WAVES);
    await store.initWaves(sha, [{ name: 'other', state: 'waiting', clusters: [] }]);
    expect((await store.read(sha))?.waves).toEqual(WAVES);
    // The read API shows them on the rollout as well.
    expect((await dynamoRolloutReader(ref).summary(sha))?.waves).toEqual(WAVES);
  });

  it('refuses waves for a commit without a rollout', async () => {
    await expect(store.initWaves('e'.repeat(40), WAVES)).rejects.toThrow(/no rollout/);
  });

  it('moves a wave only from the states given, with its fields', async () => {
    const sha = await rollout();
    await store.initWaves(sha, WAVES);
    expect(await store.moveWave(sha, 1, ['open'], { state: 'done' })).toBe(false);
    const moved = await store.moveWave(sha, 1, ['waiting', 'halted'], {
      state: 'open',
      openedAt: '2026-12-01T10:05:00.000Z',
    });
    expect(moved).toBe(true);
    expect((await store.read(sha))?.waves?.[1]).toEqual({
      name: 'prod',
      state: 'open',
      clusters: ['prod-eu', 'prod-us'],
      openedAt: '2026-12-01T10:05:00.000Z',
    });
    expect((await store.read(sha))?.waves?.[0]).toEqual(WAVES[0]);
  });

  it('answers false for a wave index past the end, a rollout without waves, or no states to move from', async () => {
    const sha = await rollout();
    expect(await store.moveWave(sha, 0, ['waiting'], { state: 'open' })).toBe(false);
    await store.initWaves(sha, WAVES);
    expect(await store.moveWave(sha, 2, ['waiting'], { state: 'open' })).toBe(false);
    expect(await store.moveWave(sha, 1, [], { state: 'open' })).toBe(false);
    expect(await store.moveWave(sha, -1, ['waiting'], { state: 'open' })).toBe(false);
    expect((await store.read(sha))?.waves).toEqual(WAVES);
  });

  it('opens a wave exactly once when two callers move it at the same moment', async () => {
    for (let round = 0; round < 5; round++) {
      const sha = await rollout();
      await store.initWaves(sha, WAVES);
      const results = await Promise.all([
        store.moveWave(sha, 1, ['waiting'], { state: 'open', openedAt: 'a' }),
        store.moveWave(sha, 1, ['waiting'], { state: 'open', openedAt: 'b' }),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results[0] ? 'a' : 'b';
      expect((await store.read(sha))?.waves?.[1]?.openedAt).toBe(winner);
    }
  });

  it('sets and clears each flag once, answering false when it already had the value', async () => {
    const sha = await rollout();
    expect(await store.setFlag(sha, 'paused', false)).toBe(false);
    expect(await store.setFlag(sha, 'paused', true)).toBe(true);
    expect(await store.setFlag(sha, 'paused', true)).toBe(false);
    expect(await store.setFlag(sha, 'halted', true)).toBe(true);
    // The status read says what the flags make of it (a halt over a pause).
    expect(await store.read(sha)).toEqual({ status: 'halted', paused: true, halted: true });
    expect(await store.setFlag(sha, 'paused', false)).toBe(true);
    expect(await store.setFlag(sha, 'paused', false)).toBe(false);
    expect(await store.read(sha)).toEqual({ status: 'halted', halted: true });
    expect(await store.setFlag('e'.repeat(40), 'aborted', true)).toBe(false);
  });

  it('records actions oldest first, keeps the latest 100 and counts the dropped ones', async () => {
    const sha = await rollout();
    for (let i = 0; i < MAX_ACTIONS + 3; i++) {
      await store.recordAction(sha, { action: 'pause', by: 'local', at: String(i).padStart(3, '0') });
    }
    const stored = await item(sha);
    const actions = stored.actions as { at: string }[];
    expect(actions).toHaveLength(MAX_ACTIONS);
    expect(actions[0]?.at).toBe('003');
    expect(actions.at(-1)?.at).toBe(String(MAX_ACTIONS + 2));
    expect(stored.actionsDropped).toBe(3);
    expect((await dynamoRolloutReader(ref).summary(sha))?.actions?.at(-1)).toEqual({
      action: 'pause',
      by: 'local',
      at: '102',
    });
  });

  it('keeps the bound when several actions are recorded at once on a full list', async () => {
    const sha = await rollout();
    for (let i = 0; i < MAX_ACTIONS; i++)
      await store.recordAction(sha, { action: 'retry', by: 'x', at: `${i}` });
    await Promise.all(
      [1, 2, 3].map((n) => store.recordAction(sha, { action: 'resume', by: `racer-${n}`, at: 'z' })),
    );
    const actions = (await item(sha)).actions as { by: string }[];
    expect(actions.length).toBeLessThanOrEqual(MAX_ACTIONS);
    expect(actions.length).toBeGreaterThanOrEqual(MAX_ACTIONS - 2);
    expect(actions.filter((a) => a.by.startsWith('racer-'))).toHaveLength(3);
  });

  it('refuses an action on a commit without a rollout', async () => {
    await expect(
      store.recordAction('e'.repeat(40), { action: 'pause', by: 'local', at: 'now' }),
    ).rejects.toThrow(/no rollout/);
  });

  it('halts a rollout only while the wave it judged is still halted', async () => {
    const sha = await rollout();
    await store.initWaves(sha, WAVES);
    // The wave is open: a halt judged on a stale read of a halted wave does not take.
    expect(await store.haltWave(sha, 0)).toBe(false);
    expect((await store.read(sha))?.halted).toBeUndefined();
    expect(await store.moveWave(sha, 0, ['open'], { state: 'halted', reason: '2 failed' })).toBe(true);
    expect(await store.haltWave(sha, 0)).toBe(true);
    expect((await store.read(sha))?.halted).toBe(true);
    // A resume with skipFailed moved it on and cleared the flag: a late halt finds nothing to halt.
    expect(await store.moveWave(sha, 0, ['halted'], { state: 'done' })).toBe(true);
    expect(await store.setFlag(sha, 'halted', false)).toBe(true);
    expect(await store.haltWave(sha, 0)).toBe(false);
    expect((await store.read(sha))?.halted).toBeUndefined();
  });
});
