import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppMemory } from '../../../lib/reconcile/ports.js';
import { QueryCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { RECONCILE_PK } from '../../../lib/store/keys.js';
import { dynamoReconcileMemory, dynamoRolloutExistence } from '../../../lib/store/reconcile-memory.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const sha = (n: number) => n.toString(16).padStart(40, '0');
const T = Date.parse('2026-09-01T10:00:00Z');

function memories(count: number): Map<string, AppMemory> {
  return new Map(
    Array.from({ length: count }, (_, i): [string, AppMemory] => [
      `argocd/app-${String(i).padStart(4, '0')}`,
      {
        observations: [
          { at: T - 60_000, syncStatus: 'OutOfSync', revision: sha(i % 7) },
          { at: T, syncStatus: 'Synced', revision: sha(i % 7) },
          { at: T + 1, syncStatus: 'Unknown' },
        ],
        behind: i % 3 === 0 ? [{ source: 0, sha: sha(100 + (i % 5)), since: T - 30_000 }] : [],
      },
    ]),
  );
}

describe('reconcile memory on the single table (dynalite)', () => {
  let dynamo: TestTable;
  let table: TableRef;

  beforeAll(async () => {
    dynamo = await startTestTable();
    table = createTableRef({ tableName: dynamo.tableName, region: 'local', endpoint: dynamo.endpoint });
  });
  afterAll(async () => {
    table?.doc.destroy();
    await dynamo?.close();
  });

  const items = async (prefix: string) =>
    (
      await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': RECONCILE_PK, ':p': prefix },
        }),
      )
    ).Items ?? [];

  it('keeps a cluster of apps in one item and reads it back exactly', async () => {
    const memory = dynamoReconcileMemory(table);
    const apps = memories(200);
    await memory.saveCluster('hub-a', apps);
    const loaded = await memory.loadCluster('hub-a');
    expect(loaded?.apps).toEqual(apps);
    expect(loaded?.chunks).toBe(1);
    expect(await items('APPS#hub-a#')).toHaveLength(1);
  });

  it('splits a large cluster over several items, and drops the spare ones when it shrinks', async () => {
    const memory = dynamoReconcileMemory(table, { maxItemBytes: 8_000 });
    const large = memories(300);
    await memory.saveCluster('hub-b', large);
    const first = await memory.loadCluster('hub-b');
    expect(first?.apps).toEqual(large);
    expect(first?.chunks).toBeGreaterThan(3);
    expect(await items('APPS#hub-b#')).toHaveLength(first?.chunks ?? 0);

    const small = memories(10);
    await memory.saveCluster('hub-b', small, first);
    const second = await memory.loadCluster('hub-b');
    expect(second?.apps).toEqual(small);
    expect(await items('APPS#hub-b#')).toHaveLength(1);
    expect((await memory.loadCluster('hub-a'))?.apps.size).toBe(200);
    // A cluster named like the start of another reads only its own items.
    await memory.saveCluster('hub', memories(3));
    expect((await memory.loadCluster('hub'))?.apps.size).toBe(3);
    expect(await memory.loadCluster('hub-c')).toBeUndefined();
  });

  it('remembers an enqueued missed-webhook push once, until it is released or expires', async () => {
    const memory = dynamoReconcileMemory(table, { missedWebhookTtlSeconds: 600 });
    const key = `git.example/org/gitops:refs/heads/main:${sha(1)}`;
    const now = new Date(T);
    expect(await memory.claimMissedWebhook(key, now)).toBe(true);
    expect(await memory.claimMissedWebhook(key, now)).toBe(false);
    expect(await memory.claimMissedWebhook(key, new Date(T + 601_000))).toBe(true);
    await memory.releaseMissedWebhook(key);
    expect(await memory.claimMissedWebhook(key, now)).toBe(true);
    const [item] = await items('MISSED#');
    expect(item?.expiresAt).toBe(T / 1000 + 600);
  });

  it('tells whether a rollout exists for a commit', async () => {
    const rollouts = dynamoRolloutExistence(table);
    expect(await rollouts.exists(sha(42))).toBe(false);
    await dynamoRolloutWriter(table, 3600).start({
      sha: sha(42),
      repo: 'org/gitops',
      ref: 'refs/heads/main',
      trigger: 'webhook',
      receivedAt: new Date(T).toISOString(),
      repoUrl: 'https://git.example/org/gitops',
      provider: 'github',
      author: 'Dev',
      commitTitle: 'x',
      deadline: new Date(T).toISOString(),
    });
    expect(await rollouts.exists(sha(42))).toBe(true);
  });
});
