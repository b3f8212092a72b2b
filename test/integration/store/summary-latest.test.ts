import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViewedApp } from '../../../lib/rollouts/ports/app-state.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { dynamoControlStore } from '../../../lib/store/control.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutDigest } from '../../../lib/store/rollout-digest.js';
import { getSummaryItem } from '../../../lib/store/rollout-summary.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { latestSummaries } from '../../../lib/store/summary-latest.js';
import { recordCommands, startTestTable, type TestTable } from '../../helpers/dynamo.js';

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

  /** A container of its own: its own client, hence its own kept items. */
  const container = () =>
    createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });

  const meta = (sha: string): RolloutMeta => ({
    sha,
    repo: 'org/gitops',
    ref: 'refs/heads/main',
    trigger: 'webhook',
    receivedAt: '2026-12-02T10:00:00.000Z',
  });

  /** A started rollout whose clusters' work items have all ended (their apps still to be viewed). */
  async function doneClusters(sha: string, clusters: readonly string[]): Promise<RolloutMeta> {
    const m = meta(sha);
    const setup = dynamoRolloutWriter(container(), 86_400);
    await setup.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await setup.planClusters(m.sha, [...clusters]);
    for (const c of clusters) await setup.recordCluster(m.sha, c, 'done');
    return m;
  }

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
    // Two containers, each with its own client (and kept items).
    const one = dynamoRolloutWriter(container(), 86_400);
    const two = dynamoRolloutWriter(container(), 86_400);
    await one.syncSummary(meta.sha, 'a', apps('refreshed', 1, 2));
    await two.syncSummary(meta.sha, 'b', apps('synced', 2, 3));
    // `one` still keeps the item from before `two` wrote b's view.
    const after = await one.syncSummary(meta.sha, 'a', apps('synced', 2, 2));
    expect(after?.counts).toEqual({ synced: 5 });
    expect(after?.status).toBe('succeeded');
    // Side by side in one container: one write at a time, each from the one before.
    const three = dynamoRolloutWriter(container(), 86_400);
    const both = await Promise.all([
      three.syncSummary(meta.sha, 'a', apps('synced', 3, 2)),
      three.syncSummary(meta.sha, 'b', apps('synced', 3, 3)),
    ]);
    expect(both.map((s) => s?.counts)).toEqual([{ synced: 5 }, { synced: 5 }]);
  });

  it('starts the view-and-status write from the item the progress update returned, and the notice’s digest from what that write returned', async () => {
    const m = meta('b'.repeat(40));
    const setup = dynamoRolloutWriter(container(), 86_400);
    await setup.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await setup.planClusters(m.sha, ['a', 'b']);
    const own = container();
    const sent = recordCommands(own);
    const work = dynamoRolloutWriter(own, 86_400);
    await work.recordCluster(m.sha, 'a', 'done', undefined, { cluster: 'a', counts: { refreshed: 2 } });
    const synced = await work.syncSummary(m.sha, 'a', apps('refreshed', 1, 2));
    const digest = await dynamoRolloutDigest(own).digest(m.sha, 0);
    // One update each, no read: the progress, then the view with the status it makes.
    expect(sent).toEqual(['UpdateCommand', 'UpdateCommand']);
    expect(synced?.counts).toEqual({ refreshed: 2, matched: 1 });
    expect(digest?.summary.counts).toEqual(synced?.counts);
    expect(digest?.clusters).toEqual({ a: { refreshed: 2 } });
  });

  it('records a work item’s end (progress, reason removed, decision counts) in the view’s own write: one update', async () => {
    const m = meta('d'.repeat(40));
    const own = container();
    const work = dynamoRolloutWriter(own, 86_400);
    await work.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await work.planClusters(m.sha, ['a', 'b']);
    // An earlier try of a's work item failed with a reason.
    await work.recordCluster(m.sha, 'a', 'retrying', 'cluster a: connect ECONNREFUSED');
    const sent = recordCommands(own);
    let recorded = 0;
    const synced = await work.syncSummary(m.sha, 'a', apps('refreshed', 1, 2), {
      decisions: { refreshed: 2, 'paths-miss': 40 },
      record: async () => {
        recorded += 1;
      },
    });
    expect(sent).toEqual(['UpdateCommand']);
    expect(recorded).toBe(0);
    // b is still planned: one unfinished app; a's reason is gone, so no error.
    expect(synced?.counts).toEqual({ refreshed: 2, matched: 1 });
    expect(synced?.clusters).toEqual({ a: 'done', b: 'planned' });
    expect(synced?.clusterErrors ?? {}).toEqual({});
    expect(synced?.decisions).toEqual({ refreshed: 2, 'paths-miss': 40 });
    // The status follows b's end written the same way from another container.
    const other = dynamoRolloutWriter(container(), 86_400);
    const end = await other.syncSummary(m.sha, 'b', apps('synced', 2, 1), { record: async () => {} });
    expect(end?.status).toBe('in-progress');
    const last = await work.syncSummary(m.sha, 'a', apps('synced', 2, 2));
    expect(last).toMatchObject({ status: 'succeeded', counts: { synced: 3 } });
  });

  it('writes a work item’s end on its own first when the view cannot take it (not newer than the stored one)', async () => {
    const m = meta('e'.repeat(40));
    const own = container();
    const work = dynamoRolloutWriter(own, 86_400);
    await work.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await work.planClusters(m.sha, ['a']);
    await work.syncSummary(m.sha, 'a', apps('synced', 1, 2));
    // A redelivered work item: its view is the one stored, so the single write has nothing to carry it.
    const done = {
      decisions: { refreshed: 2 },
      record: () =>
        work.recordCluster(m.sha, 'a', 'done', undefined, { cluster: 'a', counts: { refreshed: 2 } }),
    };
    const synced = await work.syncSummary(m.sha, 'a', apps('synced', 1, 2), done);
    expect(synced).toMatchObject({
      status: 'succeeded',
      clusters: { a: 'done' },
      decisions: { refreshed: 2 },
    });
  });

  it('reads the summary for a digest after a release-control write made since the container’s last summary write', async () => {
    const m = meta('f'.repeat(40));
    const own = container();
    const work = dynamoRolloutWriter(own, 86_400);
    await work.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await work.planClusters(m.sha, ['a']);
    await work.recordCluster(m.sha, 'a', 'done');
    await work.syncSummary(m.sha, 'a', apps('syncing', 1, 2));
    // The gate halts the rollout in the same container, right after the summary write.
    await dynamoControlStore(own).setFlag(m.sha, 'halted', true);
    const sent = recordCommands(own);
    const digest = await dynamoRolloutDigest(own).digest(m.sha, 0);
    expect(sent).toEqual(['GetCommand']);
    expect(digest?.summary.status).toBe('halted');
  });

  it('reads the summary for a digest in a container that has not written it lately', async () => {
    const m = meta('c'.repeat(40));
    const writer = dynamoRolloutWriter(container(), 86_400);
    await writer.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await writer.planClusters(m.sha, ['a']);
    await writer.recordCluster(m.sha, 'a', 'done');
    await writer.syncSummary(m.sha, 'a', apps('synced', 1, 3));
    const other = container();
    const sent = recordCommands(other);
    const digest = await dynamoRolloutDigest(other).digest(m.sha, 0);
    expect(sent).toEqual(['GetCommand']);
    expect(digest?.summary.status).toBe('succeeded');
  });

  it('writes the views of polls side by side together: a few updates for 25 clusters (at most 20 views a write), each poll told the result', async () => {
    const clusters = Array.from({ length: 25 }, (_, i) => `c${i}`);
    const m = await doneClusters('1'.repeat(40), clusters);
    const own = container();
    const track = dynamoRolloutWriter(own, 86_400);
    await track.syncSummary(m.sha, 'c0', apps('syncing', 1, 2));
    const sent = recordCommands(own);
    const results = await Promise.all(clusters.map((c) => track.syncSummary(m.sha, c, apps('synced', 2, 2))));
    const updates = sent.filter((c) => c === 'UpdateCommand').length;
    expect(updates).toBeGreaterThanOrEqual(1);
    expect(updates).toBeLessThanOrEqual(3);
    // The last write has every view: the polls that went in it are told the rollout succeeded.
    expect(results.at(-1)).toMatchObject({ status: 'succeeded', counts: { synced: 50 } });
    for (const r of results) expect(r?.counts.synced).toBeGreaterThanOrEqual(2);
    const stored = await dynamoRolloutDigest(container()).digest(m.sha, 0);
    expect(stored?.summary).toMatchObject({ status: 'succeeded', counts: { synced: 50 } });
  });

  it('stores the others and tells a poll whose view is not newer, when views go together', async () => {
    const m = await doneClusters('2'.repeat(40), ['a', 'b', 'c']);
    const own = container();
    const track = dynamoRolloutWriter(own, 86_400);
    // Another container already stored b's view at version 5 (a later poll of b's chain).
    await dynamoRolloutWriter(container(), 86_400).syncSummary(m.sha, 'b', apps('synced', 5, 1));
    await track.syncSummary(m.sha, 'a', apps('syncing', 1, 1));
    const [, b, c] = await Promise.all([
      track.syncSummary(m.sha, 'a', apps('synced', 2, 1)),
      // A stale view of b (version 2 < 5) in the same batch: it must not fail the others' write.
      track.syncSummary(m.sha, 'b', apps('syncing', 2, 1)),
      track.syncSummary(m.sha, 'c', apps('synced', 2, 1)),
    ]);
    expect(b).toMatchObject({ status: 'succeeded', counts: { synced: 3 } });
    expect(c).toMatchObject({ status: 'succeeded', counts: { synced: 3 } });
  });

  it('keeps another container’s view written between the kept item and the views that go together', async () => {
    const m = await doneClusters('3'.repeat(40), ['a', 'b', 'c']);
    const own = container();
    const track = dynamoRolloutWriter(own, 86_400);
    await track.syncSummary(m.sha, 'a', apps('syncing', 1, 1));
    // Another container writes c's end: `own`'s kept item is stale now.
    await dynamoRolloutWriter(container(), 86_400).syncSummary(m.sha, 'c', apps('synced', 2, 1));
    const results = await Promise.all([
      track.syncSummary(m.sha, 'a', apps('synced', 2, 1)),
      track.syncSummary(m.sha, 'b', apps('synced', 2, 1)),
    ]);
    expect(results.at(-1)).toMatchObject({ status: 'succeeded', counts: { synced: 3 } });
  });

  it('has a view wait for the polls side by side that said they may write one: one update, released by those that write none', async () => {
    const m = await doneClusters('4'.repeat(40), ['a', 'b', 'c']);
    const own = container();
    const track = dynamoRolloutWriter(own, 86_400);
    await track.syncSummary(m.sha, 'c', apps('synced', 1, 1));
    const sent = recordCommands(own);
    const leaves = ['a', 'b', 'c'].map((c) => track.expectView?.(m.sha, c));
    let aDone = false;
    const a = track.syncSummary(m.sha, 'a', apps('synced', 2, 1)).then((r) => {
      aDone = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    // a's view waits: b and c may still write theirs.
    expect(aDone).toBe(false);
    expect(sent).toEqual([]);
    const b = track.syncSummary(m.sha, 'b', apps('synced', 2, 1));
    // c finds nothing to write and says so: the gathered views go, in one update.
    leaves[2]?.();
    const [ra, rb] = await Promise.all([a, b]);
    expect(sent.filter((c) => c === 'UpdateCommand')).toHaveLength(1);
    expect(ra).toMatchObject({ status: 'succeeded', counts: { synced: 3 } });
    expect(rb).toEqual(ra);
    for (const leave of leaves) leave?.();
  });

  it('writes the ends of work items side by side (views, progress, decision counts) in one update', async () => {
    const sha = '6'.repeat(40);
    const m = meta(sha);
    const setup = dynamoRolloutWriter(container(), 86_400);
    await setup.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await setup.planClusters(sha, ['a', 'b', 'c']);
    // b's first attempt failed: its reason is on the summary until its end removes it.
    await setup.recordCluster(sha, 'b', 'retrying', 'cannot list objects: timeout (retrying)');
    const own = container();
    const fanout = dynamoRolloutWriter(own, 86_400);
    const sent = recordCommands(own);
    const recorded: string[] = [];
    const done = (cluster: string, refreshed: number) => ({
      decisions: { refreshed, 'paths-miss': 1 },
      record: async () => {
        recorded.push(cluster);
      },
    });
    const leaves = ['a', 'b', 'c'].map((c) => fanout.expectView?.(sha, c));
    const results = await Promise.all([
      fanout.syncSummary(sha, 'a', apps('refreshed', 1, 2), done('a', 2)),
      fanout.syncSummary(sha, 'b', apps('refreshed', 1, 3), done('b', 3)),
      fanout.syncSummary(sha, 'c', apps('refreshed', 1, 1), done('c', 1)),
    ]);
    for (const leave of leaves) leave?.();
    expect(sent.filter((c) => c === 'UpdateCommand')).toHaveLength(1);
    // Every end went in that write: none took the two-write way.
    expect(recorded).toEqual([]);
    expect(results.map((r) => r?.counts)).toEqual([{ refreshed: 6 }, { refreshed: 6 }, { refreshed: 6 }]);
    const item = (await getSummaryItem(ref, sha)) ?? {};
    expect(item.clusters).toEqual({ a: 'done', b: 'done', c: 'done' });
    expect(item.decisionsByCluster).toEqual({
      a: { refreshed: 2, 'paths-miss': 1 },
      b: { refreshed: 3, 'paths-miss': 1 },
      c: { refreshed: 1, 'paths-miss': 1 },
    });
    expect((item.clusterErrors as Record<string, string> | undefined)?.b).toBeUndefined();
  });

  it('writes a work item’s end the two-write way when the gathered update cannot take it', async () => {
    const sha = '7'.repeat(40);
    const m = meta(sha);
    const setup = dynamoRolloutWriter(container(), 86_400);
    await setup.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    await setup.planClusters(sha, ['a', 'b']);
    // Another container already stored a newer view of b: b's end cannot go in a's write.
    await dynamoRolloutWriter(container(), 86_400).syncSummary(sha, 'b', apps('synced', 5, 1));
    const fanout = dynamoRolloutWriter(container(), 86_400);
    const recorded: string[] = [];
    const done = (cluster: string) => ({
      decisions: { refreshed: 1 },
      record: async () => {
        recorded.push(cluster);
        await setup.recordCluster(sha, cluster, 'done', undefined, { cluster, counts: { refreshed: 1 } });
      },
    });
    const leaves = ['a', 'b'].map((c) => fanout.expectView?.(sha, c));
    const [a, b] = await Promise.all([
      fanout.syncSummary(sha, 'a', apps('synced', 1, 1), done('a')),
      fanout.syncSummary(sha, 'b', apps('refreshed', 1, 1), done('b')),
    ]);
    for (const leave of leaves) leave?.();
    // a's end went in its own single write; b's progress the two-write way, its stale view not stored.
    expect(recorded).toEqual(['b']);
    expect(a).toMatchObject({ counts: { synced: 2 } });
    expect(b).toMatchObject({ status: 'succeeded', counts: { synced: 2 } });
    const item = (await getSummaryItem(ref, sha)) ?? {};
    expect(item.clusters).toEqual({ a: 'done', b: 'done' });
    expect(item.decisionsByCluster).toEqual({ a: { refreshed: 1 }, b: { refreshed: 1 } });
  });

  it('writes a gathered view after a bounded wait when a poll side by side never says it is done', async () => {
    const m = await doneClusters('5'.repeat(40), ['a', 'b']);
    const track = dynamoRolloutWriter(container(), 86_400);
    track.expectView?.(m.sha, 'b');
    const started = Date.now();
    const a = await track.syncSummary(m.sha, 'a', apps('synced', 2, 1));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(a?.counts).toEqual({ synced: 1, matched: 1 });
  });
});

describe('kept summary items', () => {
  it('are fresh for the age asked, and an older answer never replaces a newer kept item', () => {
    let now = 1_000;
    const latest = latestSummaries(16, () => now);
    latest.set('s', { viewsVersion: 3, errorsVersion: 2, n: 'newer' });
    expect(latest.fresh('s', 500)?.n).toBe('newer');
    latest.offer('s', { viewsVersion: 2, errorsVersion: 2, n: 'late answer' });
    latest.offer('s', { viewsVersion: 3, errorsVersion: 1, n: 'late answer' });
    expect(latest.get('s')?.n).toBe('newer');
    latest.offer('s', { viewsVersion: 3, errorsVersion: 3, n: 'newest' });
    expect(latest.get('s')?.n).toBe('newest');
    now += 501;
    expect(latest.fresh('s', 500)).toBeUndefined();
    expect(latest.get('s')?.n).toBe('newest');
  });

  it('are not fresh when their request was sent before a write that bypassed the copy ended', () => {
    let now = 1_000;
    const latest = latestSummaries(16, () => now);
    latest.forget('s');
    // An answer to a request sent before that write ended (it may lack its change): kept, never fresh.
    latest.offer('s', { viewsVersion: 1, n: 'sent before' }, 999);
    expect(latest.get('s')?.n).toBe('sent before');
    expect(latest.fresh('s', 500)).toBeUndefined();
    // One sent after it holds the change.
    now += 10;
    latest.offer('s', { viewsVersion: 2, n: 'sent after' }, 1_005);
    expect(latest.fresh('s', 500)?.n).toBe('sent after');
  });
});
