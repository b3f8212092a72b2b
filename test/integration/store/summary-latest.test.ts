import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViewedApp } from '../../../lib/rollouts/ports/app-state.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

/**
 * The summary's writes start from the item the container's last write returned: one kept while another
 * container wrote since is stale, and a write from it must not lose that container's view.
 */
describe('summary writes from a kept item', () => {
  let table: TestTable;
  let ref: ReturnType<typeof createTableRef>;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => {
    await table.close();
  });

  const apps = (state: ViewedApp['state'], version: number, n: number): ViewedApp[] =>
    Array.from({ length: n }, () => ({ state, version, finishedAt: '2026-12-02T10:00:00.000Z' }));

  it('keeps every container’s view when one writes from an item another has since changed', async () => {
    const meta: RolloutMeta = {
      sha: 'a'.repeat(40),
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: '2026-12-02T10:00:00.000Z',
    };
    const setup = dynamoRolloutWriter(ref, 86_400);
    await setup.start({ ...meta, repoUrl: 'https://github.com/org/gitops' });
    await setup.planClusters(meta.sha, ['a', 'b']);
    await setup.recordCluster(meta.sha, 'a', 'done');
    await setup.recordCluster(meta.sha, 'b', 'done');
    // Two containers, each with its own store (and kept items).
    const one = dynamoRolloutWriter(ref, 86_400);
    const two = dynamoRolloutWriter(ref, 86_400);
    await one.syncSummary(meta.sha, 'a', apps('refreshed', 1, 2));
    await two.syncSummary(meta.sha, 'b', apps('synced', 2, 3));
    // `one` still keeps the item from before `two` wrote b's view.
    const after = await one.syncSummary(meta.sha, 'a', apps('synced', 2, 2));
    expect(after?.counts).toEqual({ synced: 5 });
    expect(after?.status).toBe('succeeded');
    // Side by side in one container: one write at a time, each from the one before.
    const three = dynamoRolloutWriter(ref, 86_400);
    const both = await Promise.all([
      three.syncSummary(meta.sha, 'a', apps('synced', 3, 2)),
      three.syncSummary(meta.sha, 'b', apps('synced', 3, 3)),
    ]);
    expect(both.map((s) => s?.counts)).toEqual([{ synced: 5 }, { synced: 5 }]);
  });
});
