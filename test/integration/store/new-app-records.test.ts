import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { newAppRecords } from '../../../lib/store/new-app-records.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

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
});
