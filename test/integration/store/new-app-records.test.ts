import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { dynamoClusterLeases, releasedLeaseItem } from '../../../lib/store/cluster-leases.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { newAppRecords } from '../../../lib/store/new-app-records.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { handBackBesideRelease, startTestTable, type TestTable } from '../../helpers/dynamo.js';

const META: RolloutMeta = {
  sha: 'c'.repeat(40),
  repo: 'org/gitops',
  ref: 'refs/heads/main',
  trigger: 'webhook',
  receivedAt: '2026-12-02T10:00:00.000Z',
};
const app = (name: string): AppTarget => ({ cluster: 'hub', namespace: 'argocd', name, kind: 'Application' });

/** Issue 21: the lease holder's end-of-batch writes were unconditional puts (the last writer won). */
describe('new-app records of a lease holder, through dynalite', () => {
  let table: TestTable;
  let ref: TableRef;
  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    await dynamoRolloutWriter(ref, 86400).start({ ...META, repoUrl: 'https://github.com/org/gitops' });
  });
  afterAll(async () => table.close());

  async function stateOf(name: string) {
    return (await dynamoRolloutReader(ref).listApps(META.sha, 'hub')).find((a) => a.name === name)?.state;
  }

  it('a holder past its lease never overwrites what a later holder recorded', async () => {
    const late = newAppRecords(ref, META, 86400, { untilMs: Date.now() - 1 });
    await late.claimApp(META, { ...app('web'), state: 'matched', claimedAt: META.receivedAt }, undefined);
    await late.transition(META.sha, app('web'), { state: 'refreshed' }, 1);
    // Meanwhile the next holder refreshed it, and track followed it to its end.
    await dynamoRolloutWriter(ref, 86400).recordApp(META, { ...app('web'), state: 'synced' });
    expect(await late.flush()).toBe(0);
    expect(await stateOf('web')).toBe('synced');
  });

  it('a holder within its lease writes its records, only the ones asked for', async () => {
    const holder = newAppRecords(ref, META, 86400, { untilMs: Date.now() + 60_000 });
    for (const name of ['api', 'worker']) {
      await holder.recordApp(META, {
        ...app(name),
        state: 'refreshed',
        message: 'already at the pushed commit',
      });
    }
    expect(await holder.flush([app('api')])).toBe(1);
    expect(await stateOf('api')).toBe('refreshed');
    expect(await stateOf('worker')).toBeUndefined();
    expect(holder.size).toBe(1);
    expect(await holder.flush()).toBe(1);
    expect(await stateOf('worker')).toBe('refreshed');
  });

  it('knows the view of what it wrote, and not once a put found a record there', async () => {
    const holder = newAppRecords(ref, META, 86400, { untilMs: Date.now() + 60_000 });
    await holder.recordApp(META, { ...app('view-a'), state: 'refreshed', wave: 'canary' });
    await holder.flush();
    const read = (await dynamoRolloutReader(ref).listApps(META.sha, 'hub')).find((a) => a.name === 'view-a');
    expect(holder.viewed()).toEqual([
      { state: 'refreshed', version: read?.version, wave: 'canary', updatedAt: expect.any(String) },
    ]);
    const late = newAppRecords(ref, META, 86400, { untilMs: Date.now() - 1 });
    await late.recordApp(META, { ...app('view-a'), state: 'matched' });
    expect(await late.flush()).toBe(0);
    expect(late.viewed()).toBeUndefined();
  });

  it('writes the decisions with the records of its last batch, and alone when none are left', async () => {
    const writer = dynamoRolloutWriter(ref, 86400);
    const holder = newAppRecords(ref, META, 86400, { untilMs: Date.now() + 60_000 });
    await holder.recordApp(META, { ...app('with-decisions'), state: 'refreshed' });
    const decided = [{ ...app('with-decisions'), decision: 'refreshed' as const }];
    await writer.recordDecisions(META.sha, 'hub#t#d1#000', decided, { pending: holder });
    expect(holder.size).toBe(0);
    expect(await stateOf('with-decisions')).toBe('refreshed');
    await writer.recordDecisions(META.sha, 'hub#t#d2#000', decided, { pending: holder });
    const decisions = await dynamoRolloutReader(ref).decisions(META.sha);
    expect(decisions.filter((d) => d.name === 'with-decisions')).toHaveLength(1);
    const summary = await dynamoRolloutReader(ref).summary(META.sha);
    expect(summary?.decisions).toMatchObject({ refreshed: 1 });
  });

  it('puts the records handed back beside a processed release only where no later holder recorded one', async () => {
    const sha = 'e'.repeat(40);
    const meta = { ...META, sha };
    await dynamoRolloutWriter(ref, 86400).start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    const leases = dynamoClusterLeases(ref, 86400);
    const taken = await leases.acquire(sha, 'hub', 'work#1', Date.now() + 60_000);
    if (!taken.held) throw new Error('the lease should be free');
    // DynamoDB takes the release and the other puts, hands the first two app items back; before they go
    // again the next holder (the lease is free) records the first of them.
    const { ref: faulty, handedBack } = handBackBesideRelease(table, async () => {
      expect((await leases.acquire(sha, 'hub', 'work#2', Date.now() + 60_000)).held).toBe(true);
      await dynamoRolloutWriter(ref, 86400).recordApp(meta, { ...app('r-0'), state: 'synced' });
    });
    const holder = newAppRecords(faulty, meta, 86400, { untilMs: Date.now() + 60_000 });
    for (let i = 0; i < 4; i++) await holder.recordApp(meta, { ...app(`r-${i}`), state: 'refreshed' });
    let released = 0;
    const written = await holder.flush(undefined, [], {
      item: releasedLeaseItem(sha, 'hub', { holder: 'work#1', expiresAt: taken.expiresAt }),
      released: () => {
        released += 1;
      },
    });
    expect(handedBack()).toBe(true);
    expect(released).toBe(1);
    // r-0 is the later holder's record; r-1 (handed back too) was put, the others went in the batch.
    expect(written).toBe(3);
    const after = new Map(
      (await dynamoRolloutReader(ref).listApps(sha, 'hub')).map((a) => [a.name, a.state]),
    );
    expect(Object.fromEntries(after)).toEqual({
      'r-0': 'synced',
      'r-1': 'refreshed',
      'r-2': 'refreshed',
      'r-3': 'refreshed',
    });
    // What it wrote is no longer the cluster's whole view: the caller reads it again.
    expect(holder.viewed()).toBeUndefined();
  });
});
