import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRecord, AppTarget } from '../../../lib/rollouts/app-model.js';
import type { RolloutMeta } from '../../../lib/rollouts/ports/rollout-writer.js';
import { dynamoAppTransitions } from '../../../lib/store/app-transitions.js';
import { UpdateCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { appSk, rolloutPk } from '../../../lib/store/keys.js';
import { dynamoRolloutDigest } from '../../../lib/store/rollout-digest.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const target = (name: string, cluster = 'hub'): AppTarget => ({
  cluster,
  namespace: 'argocd',
  name,
  kind: 'Application',
});

let counter = 0;
function meta(): RolloutMeta {
  counter += 1;
  return {
    sha: counter.toString(16).padStart(40, 'd'),
    repo: 'org/gitops',
    ref: 'refs/heads/main',
    trigger: 'webhook',
    receivedAt: '2026-12-02T10:00:00.000Z',
  };
}

describe('the rollout digest: summary views and a bounded list of problem apps', () => {
  let table: TestTable;
  let ref: TableRef;
  let writer: ReturnType<typeof dynamoRolloutWriter>;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    writer = dynamoRolloutWriter(ref, 86400);
  });
  afterAll(async () => table.close());

  async function rolloutWith(apps: readonly AppRecord[]) {
    const m = meta();
    await writer.start({ ...m, repoUrl: 'https://github.com/org/gitops' });
    const records = writer.newApps(m);
    for (const app of apps) await records.recordApp(m, app);
    await records.flush();
    await writer.syncSummary(m.sha);
    return m;
  }

  it('counts a hub’s apps per destination cluster as well as per cluster holding them', async () => {
    const apps: AppRecord[] = [
      { ...target('a'), destination: 'spoke-eu', state: 'synced' },
      { ...target('b'), destination: 'spoke-eu', state: 'failed' },
      { ...target('c'), destination: 'spoke-us', state: 'syncing' },
      { ...target('d', 'east'), state: 'synced' },
    ];
    const m = await rolloutWith(apps);
    const digest = await dynamoRolloutDigest(ref).digest(m.sha, 5);
    expect(digest?.clusters).toEqual({ hub: { synced: 1, failed: 1, syncing: 1 }, east: { synced: 1 } });
    expect(digest?.destinations).toEqual({
      'spoke-eu': { synced: 1, failed: 1 },
      'spoke-us': { syncing: 1 },
      east: { synced: 1 },
    });
  });

  it('counts every app from the views and reads only the first problem apps, in listing order', async () => {
    const apps: AppRecord[] = [
      ...Array.from({ length: 30 }, (_, i) => ({ ...target(`ok-${i}`), state: 'synced' as const })),
      ...Array.from({ length: 8 }, (_, i) => ({ ...target(`bad-${i}`, 'spoke'), state: 'failed' as const })),
      { ...target('drift'), state: 'out-of-sync', message: 'drifted' },
      { ...target('stuck'), state: 'blocked' },
    ];
    const m = await rolloutWith(apps);
    const digest = await dynamoRolloutDigest(ref).digest(m.sha, 5);
    expect(digest?.clusters).toEqual({
      hub: { synced: 30, 'out-of-sync': 1, blocked: 1 },
      spoke: { failed: 8 },
    });
    expect(digest?.problems.map((a) => `${a.state} ${a.name}`)).toEqual([
      'failed bad-0',
      'failed bad-1',
      'failed bad-2',
      'failed bad-3',
      'failed bad-4',
    ]);
    const all = await dynamoRolloutDigest(ref).digest(m.sha, 50);
    expect(all?.problems.map((a) => a.name).slice(-2)).toEqual(['stuck', 'drift']);
    expect(all?.problems).toHaveLength(10);
  });

  it('takes an app out of the problem list once it moved on, and keeps warned apps apart', async () => {
    const warned: AppRecord = {
      ...target('helm'),
      state: 'refreshed',
      preflight: { verdict: 'warn', reasons: ['Helm chart templates are not rendered'] },
    } as AppRecord;
    const m = await rolloutWith([{ ...target('web'), state: 'refreshed' }, warned]);
    await writer.transition(m.sha, target('web'), { state: 'degraded' }, 1);
    let digest = await dynamoRolloutDigest(ref).digest(m.sha, 20);
    expect(digest?.problems.map((a) => a.name)).toEqual(['web']);
    expect(digest?.warned.map((a) => a.name)).toEqual(['helm']);
    expect(digest?.warnedCount).toBe(1);
    // the lease holder's batch path (track) moves it on too
    await dynamoAppTransitions(ref).transitionMany(m.sha, 'hub', [
      { target: target('web'), change: { state: 'synced' }, expectedVersion: 2 },
    ]);
    digest = await dynamoRolloutDigest(ref).digest(m.sha, 20);
    expect(digest?.problems).toEqual([]);
  });

  it('counts warned apps past the first page', async () => {
    const apps = Array.from({ length: 7 }, (_, i) => ({
      ...target(`w-${i}`),
      state: 'synced' as const,
      preflight: { verdict: 'warn' as const, reasons: ['not rendered'] },
    })) as AppRecord[];
    const m = await rolloutWith(apps);
    const digest = await dynamoRolloutDigest(ref).digest(m.sha, 3);
    expect(digest?.warned).toHaveLength(3);
    expect(digest?.warnedCount).toBe(7);
  });

  it('reads a cluster from the table when the index shows fewer problems than its view counts', async () => {
    const m = await rolloutWith([
      { ...target('a'), state: 'failed' },
      { ...target('b'), state: 'failed' },
    ]);
    // An index entry not there yet (DynamoDB updates a GSI after the write): the item without its keys.
    await ref.doc.send(
      new UpdateCommand({
        TableName: ref.tableName,
        Key: { pk: rolloutPk(m.sha), sk: appSk(target('b')) },
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      }),
    );
    const digest = await dynamoRolloutDigest(ref).digest(m.sha, 20);
    expect(digest?.problems.map((a) => a.name)).toEqual(['a', 'b']);
  });
});
