import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { GetCommand, PutCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { rolloutPk, SUMMARY_SK } from '../../../lib/store/keys.js';
import { dynamoRolloutReader } from '../../../lib/store/rollout-items.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const app = (name: string, cluster = 'hub'): AppTarget => ({
  cluster,
  namespace: 'argocd',
  name,
  kind: 'Application',
});

let counter = 0;
function meta(receivedAt = '2026-11-30T10:00:00.000Z'): RolloutMeta {
  counter += 1;
  return {
    sha: counter.toString(16).padStart(40, 'c'),
    repo: 'org/gitops',
    ref: 'refs/heads/main',
    trigger: 'webhook',
    receivedAt,
  };
}

describe('the DynamoDB rollout records', () => {
  let table: TestTable;
  let writer: ReturnType<typeof dynamoRolloutWriter>;
  let reader: ReturnType<typeof dynamoRolloutReader>;
  let ref: ReturnType<typeof createTableRef>;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86400);
    reader = dynamoRolloutReader(ref);
  });
  afterAll(async () => table.close());

  /** The summary item `start` writes for `m` (written under `m` and read back). */
  async function summaryItemOf(m: RolloutMeta) {
    await writer.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    const { Item } = await ref.doc.send(
      new GetCommand({ TableName: table.tableName, Key: { pk: rolloutPk(m.sha), sk: SUMMARY_SK } }),
    );
    if (Item === undefined) throw new Error('no summary item');
    return Item;
  }

  async function started(m = meta()) {
    await writer.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    return m;
  }

  it('creates one rollout per commit and adds the refs of later pushes of the same commit', async () => {
    const m = await started();
    expect(
      await writer.start({ ...m, ref: 'refs/tags/v1.0.0', repoUrl: 'https://github.com/org/gitops' }),
    ).toBe('exists');
    expect(
      await writer.start({ ...m, ref: 'refs/tags/v1.0.0', repoUrl: 'https://github.com/org/gitops' }),
    ).toBe('exists');
    expect((await reader.get(m.sha))?.refs).toEqual(['refs/heads/main', 'refs/tags/v1.0.0']);
  });

  it('lets one of two deliveries claim an app, at the version both read', async () => {
    const m = await started();
    const claim = { ...app('claimed'), state: 'matched' as const, claimedAt: new Date().toISOString() };
    const [a, b] = await Promise.all([
      writer.claimApp(m, claim, undefined),
      writer.claimApp(m, claim, undefined),
    ]);
    expect([a, b].filter((v) => v !== undefined)).toEqual([1]);
    expect(await writer.claimApp(m, claim, 0)).toBeUndefined();
    const again = await writer.claimApp(m, { ...claim, state: 'refreshed' }, 1);
    expect(again).toBe(2);
    const [stored] = await reader.listApps(m.sha);
    expect(stored).toMatchObject({ state: 'refreshed', version: 2, claimedAt: claim.claimedAt });
  });

  it('reads the app items of one cluster of a rollout', async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('one'), state: 'refreshed' });
    await writer.recordApp(m, { ...app('two'), cluster: 'spoke', state: 'refreshed' });
    expect((await reader.listApps(m.sha, 'spoke')).map((a) => a.name)).toEqual(['two']);
  });

  it('never moves an app back to an earlier state when a redelivery records it again', async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('api'), state: 'synced', decision: 'refreshed' });
    await writer.recordApp(m, { ...app('api'), state: 'refreshed', decision: 'refreshed' });
    expect((await reader.listApps(m.sha))[0]?.state).toBe('synced');
  });

  it('lets exactly one of two pollers racing on the same version write its change', async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('cart'), state: 'refreshed' });
    const [stored] = await reader.listApps(m.sha);
    const results = await Promise.all([
      writer.transition(m.sha, app('cart'), { state: 'syncing' }, stored?.version ?? 0),
      writer.transition(m.sha, app('cart'), { state: 'synced', health: 'Healthy' }, stored?.version ?? 0),
    ]);
    expect(results.sort()).toEqual(['conflict', 'updated']);
  });

  it('refuses a transition to an earlier state even at the current version', async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('search'), state: 'failed' });
    const [stored] = await reader.listApps(m.sha);
    expect(await writer.transition(m.sha, app('search'), { state: 'syncing' }, stored?.version ?? 0)).toBe(
      'conflict',
    );
  });

  it.each([
    { states: ['refreshed', 'synced'], status: 'in-progress' },
    { states: ['synced', 'synced'], status: 'succeeded' },
    { states: ['synced', 'failed'], status: 'partial' },
    { states: ['degraded', 'timeout'], status: 'failed' },
    { states: ['blocked', 'blocked'], status: 'blocked' },
  ] as const)('derives the summary status $status from apps $states', async ({ states, status }) => {
    const m = await started();
    for (const [i, state] of states.entries()) await writer.recordApp(m, { ...app(`a${i}`), state });
    const summary = await writer.syncSummary(m.sha);
    expect(summary?.status).toBe(status);
    expect(Object.values(summary?.counts ?? {}).reduce((a, b) => a + b, 0)).toBe(states.length);
  });

  it('marks a rollout that matched no app as succeeded', async () => {
    const m = await started();
    expect((await writer.syncSummary(m.sha))?.status).toBe('succeeded');
  });

  it('keeps decisions of apps that were not refreshed, with counts on the summary', async () => {
    const m = await started();
    const decisions = [
      { ...app('x'), decision: 'paths-miss' as const },
      { ...app('y'), decision: 'revision-miss' as const },
      { ...app('z'), decision: 'paths-miss' as const },
    ];
    await writer.recordDecisions(m.sha, 'hub#d1#0', decisions);
    expect(await reader.decisions(m.sha)).toHaveLength(3);
    expect((await reader.get(m.sha))?.decisions).toEqual({ 'paths-miss': 2, 'revision-miss': 1 });
  });

  it('counts a redelivered fan-out once, and one decision per object across deliveries', async () => {
    const m = await started();
    const first = [
      { ...app('x'), decision: 'refreshed' as const },
      { ...app('y'), decision: 'paths-miss' as const },
    ];
    await writer.recordDecisions(m.sha, 'hub#d1#0', first);
    await writer.recordDecisions(m.sha, 'hub#d1#0', first);
    expect((await reader.get(m.sha))?.decisions).toEqual({ refreshed: 1, 'paths-miss': 1 });
    await writer.recordDecisions(m.sha, 'hub#d2#0', [{ ...app('x'), decision: 'error' as const }]);
    expect((await reader.get(m.sha))?.decisions).toEqual({ error: 1, 'paths-miss': 1 });
    expect(await reader.decisions(m.sha)).toHaveLength(2);
  });

  it("writes a work item's decision counts with its cluster progress, in one update", async () => {
    const m = await started();
    const decided = await writer.recordDecisions(
      m.sha,
      'hub#d1#0',
      [{ ...app('x'), decision: 'refreshed' as const }],
      { withProgress: true },
    );
    expect(decided).toEqual({ cluster: 'hub', counts: { refreshed: 1 } });
    // Not written yet: they go with the progress.
    expect((await reader.get(m.sha))?.decisions ?? {}).toEqual({});
    await writer.recordCluster(m.sha, 'hub', 'done', undefined, decided);
    const stored = await reader.get(m.sha);
    expect(stored?.decisions).toEqual({ refreshed: 1 });
    expect(stored?.clusters).toEqual({ hub: 'done' });
  });

  it('records progress and counts on a summary written before the decisions map existed', async () => {
    const m = await started();
    const { Item } = await ref.doc.send(
      new GetCommand({ TableName: table.tableName, Key: { pk: rolloutPk(m.sha), sk: SUMMARY_SK } }),
    );
    const { decisionsByCluster: _gone, ...old } = Item as Record<string, unknown>;
    await ref.doc.send(new PutCommand({ TableName: table.tableName, Item: old }));
    await writer.recordCluster(m.sha, 'hub', 'retrying', 'timed out (retrying)', {
      cluster: 'hub',
      counts: { error: 2 },
    });
    const stored = await reader.get(m.sha);
    expect(stored?.decisions).toEqual({ error: 2 });
    expect(stored?.clusters).toEqual({ hub: 'retrying' });
  });

  it('adds up the decision counts of every cluster, each counted from its own batches', async () => {
    const m = await started();
    await writer.recordDecisions(m.sha, 'hub#d1#0', [{ ...app('x'), decision: 'refreshed' as const }]);
    await writer.recordDecisions(m.sha, 'spoke#d1#0', [
      { ...app('x', 'spoke'), decision: 'paths-miss' as const },
      { ...app('y', 'spoke'), decision: 'paths-miss' as const },
    ]);
    await writer.recordDecisions(m.sha, 'spoke#d2#0', [
      { ...app('y', 'spoke'), decision: 'refreshed' as const },
    ]);
    expect((await reader.get(m.sha))?.decisions).toEqual({ refreshed: 2, 'paths-miss': 1 });
  });

  it('records decisions of a rollout whose summary was not written yet', async () => {
    const m = meta();
    await writer.recordDecisions(m.sha, 'hub#d1#0', [{ ...app('x'), decision: 'paths-miss' as const }]);
    await writer.recordDecisions(m.sha, 'spoke#d1#0', [
      { ...app('y', 'spoke'), decision: 'paths-miss' as const },
    ]);
    expect(await reader.decisions(m.sha)).toHaveLength(2);
  });

  it('writes the records of new apps in batches, as the claim and its changes would have', async () => {
    const m = await started();
    const fresh = writer.newApps(m);
    const claimedAt = new Date().toISOString();
    const version = await fresh.claimApp(
      m,
      { ...app('n1'), state: 'matched', claimedAt, message: 'refreshing' },
      undefined,
    );
    expect(
      await fresh.transition(
        m.sha,
        app('n1'),
        { state: 'refreshed', refreshedAt: claimedAt, message: null },
        version ?? 0,
      ),
    ).toBe('updated');
    await fresh.recordApp(m, { ...app('n2'), state: 'refreshed', message: 'already at the pushed commit' });
    expect(fresh.size).toBe(2);
    expect(await reader.listApps(m.sha)).toEqual([]);
    await fresh.flush();
    const apps = await reader.listApps(m.sha, 'hub');
    expect(apps.map((a) => [a.name, a.state, a.version, a.message])).toEqual([
      ['n1', 'refreshed', 2, undefined],
      ['n2', 'refreshed', 1, 'already at the pushed commit'],
    ]);
    expect(apps[0]?.claimedAt).toBe(claimedAt);
    // They are ordinary records: a later conditional change applies at their version.
    expect(await writer.transition(m.sha, app('n1'), { state: 'synced' }, 2)).toBe('updated');
    expect((await writer.syncSummary(m.sha, 'hub'))?.counts).toEqual({ synced: 1, refreshed: 1 });
  });

  it('derives the status of a rollout whose summary was written before per-cluster views existed', async () => {
    const m = meta();
    const { views: _views, decisionsByCluster: _decisions, ...old } = await summaryItemOf(m);
    await ref.doc.send(new PutCommand({ TableName: table.tableName, Item: old }));
    await writer.recordApp(m, { ...app('a', 'hub'), state: 'synced' });
    expect((await writer.syncSummary(m.sha, 'hub'))?.status).toBe('succeeded');
    expect((await writer.syncSummary(m.sha, 'nowhere'))?.status).toBe('succeeded');
  });

  it('answers nothing for a rollout whose summary does not exist', async () => {
    const m = meta();
    await writer.recordApp(m, { ...app('a', 'hub'), state: 'synced' });
    expect(await writer.syncSummary(m.sha, 'hub')).toBeUndefined();
  });

  it('derives the status from every cluster while syncing one cluster at a time', async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('a', 'hub'), state: 'synced' });
    await writer.recordApp(m, { ...app('b', 'spoke'), state: 'refreshed' });
    expect((await writer.syncSummary(m.sha, 'hub'))?.status).toBe('succeeded');
    expect((await writer.syncSummary(m.sha, 'spoke'))?.status).toBe('in-progress');
    await writer.recordApp(m, {
      ...app('b', 'spoke'),
      state: 'degraded',
      finishedAt: '2026-11-30T10:05:00.000Z',
    });
    // The hub's view is stored; only the spoke's apps are read again.
    const done = await writer.syncSummary(m.sha, 'spoke');
    expect(done?.status).toBe('partial');
    expect(done?.counts).toEqual({ synced: 1, degraded: 1 });
    expect(done?.finishedAt).toBe('2026-11-30T10:05:00.000Z');
    // A full sync agrees with the per-cluster ones.
    expect((await writer.syncSummary(m.sha))?.counts).toEqual({ synced: 1, degraded: 1 });
  });

  it("derives a cluster's view from the apps the caller has just read, without reading them again", async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('web'), state: 'refreshed' });
    await writer.syncSummary(m.sha, 'hub');
    const [stored] = await reader.listApps(m.sha, 'hub');
    expect(await writer.transition(m.sha, app('web'), { state: 'synced' }, stored?.version ?? 0)).toBe(
      'updated',
    );
    // Given the apps as read before that write: the stored view stays at the write's older version.
    expect((await writer.syncSummary(m.sha, 'hub', stored ? [stored] : []))?.counts).toEqual({
      refreshed: 1,
    });
    const [after] = await reader.listApps(m.sha, 'hub');
    expect((await writer.syncSummary(m.sha, 'hub', after ? [after] : []))?.counts).toEqual({ synced: 1 });
  });

  it('never reads a rollout over while a cluster recorded done has not stored its view yet', async () => {
    const m = await started();
    await writer.planClusters(m.sha, ['hub', 'spoke']);
    await writer.recordApp(m, { ...app('web', 'hub'), state: 'refreshed' });
    // The hub's work item records its cluster done before it stores its view; the spoke (no apps) syncs
    // in between.
    await writer.recordCluster(m.sha, 'hub', 'done');
    await writer.recordCluster(m.sha, 'spoke', 'done');
    // Not over: the hub counts as not yet reported (as a planned cluster does).
    expect((await writer.syncSummary(m.sha, 'spoke', []))?.status).toBe('pending');
    expect((await writer.syncSummary(m.sha, 'hub'))?.status).toBe('in-progress');
    const [stored] = await reader.listApps(m.sha, 'hub');
    await writer.transition(m.sha, app('web', 'hub'), { state: 'synced' }, stored?.version ?? 0);
    expect((await writer.syncSummary(m.sha, 'hub'))?.status).toBe('succeeded');
  });

  it("writes one cluster's newer view and the status it makes in one update of the summary", async () => {
    const m = await started();
    await writer.recordApp(m, { ...app('web'), state: 'refreshed' });
    await writer.syncSummary(m.sha, 'hub');
    const [stored] = await reader.listApps(m.sha, 'hub');
    await writer.transition(m.sha, app('web'), { state: 'synced' }, stored?.version ?? 0);
    const [after] = await reader.listApps(m.sha, 'hub');
    const updates: string[] = [];
    const counting: TableRef = {
      ...ref,
      doc: {
        send: (command) => {
          const seen = command as unknown as {
            input: { Key?: { sk?: string } };
            constructor: { name: string };
          };
          if (seen.constructor.name === 'UpdateCommand') updates.push(String(seen.input.Key?.sk));
          return ref.doc.send(command);
        },
        destroy: () => undefined,
      },
    };
    const synced = await dynamoRolloutWriter(counting, 86400).syncSummary(m.sha, 'hub', after ? [after] : []);
    expect(synced?.status).toBe('succeeded');
    // DynamoDB bills every update at the whole item's size: one, not a view write and a status write.
    expect(updates).toEqual([SUMMARY_SK]);
  });

  it('derives the right status when every cluster syncs its view at the same moment', async () => {
    const m = await started();
    const clusters = Array.from({ length: 12 }, (_, i) => `c${i}`);
    for (const c of clusters) await writer.recordApp(m, { ...app('web', c), state: 'refreshed' });
    await writer.syncSummary(m.sha);
    for (const c of clusters) {
      const [one] = await reader.listApps(m.sha, c);
      await writer.transition(m.sha, app('web', c), { state: 'synced' }, one?.version ?? 0);
    }
    const known = await Promise.all(clusters.map((c) => reader.listApps(m.sha, c)));
    // Each writer read a summary the others are changing: the losers of the single write take the other way.
    await Promise.all(clusters.map((c, i) => writer.syncSummary(m.sha, c, known[i])));
    const summary = await reader.summary(m.sha);
    expect(summary?.status).toBe('succeeded');
    expect(summary?.counts).toEqual({ synced: clusters.length });
  });

  it('serves an app history newest first, page by page', async () => {
    const times = ['2026-11-28T10:00:00.000Z', '2026-11-29T10:00:00.000Z', '2026-11-30T10:00:00.000Z'];
    for (const t of times) {
      const m = await started(meta(t));
      await writer.recordApp(m, { ...app('ledger', 'spoke-a'), state: 'synced' });
    }
    const first = await reader.history(app('ledger', 'spoke-a'), { limit: 2 });
    expect(first.items.map((h) => h.receivedAt)).toEqual([times[2], times[1]]);
    expect(first.nextCursor).toBeDefined();
    const second = await reader.history(app('ledger', 'spoke-a'), {
      limit: 2,
      cursor: first.nextCursor ?? '',
    });
    expect(second.items.map((h) => h.receivedAt)).toEqual([times[0]]);
  });
});
