import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { recordCommands, startTestTable, type TestTable } from '../../helpers/dynamo.js';

/**
 * A work item whose apps are to be followed registers the rollout for tracking in the batch of its
 * decisions: the same item `register` writes, its `adds` stamp new on every registration, so a poll that
 * read an older registration cannot drop a newer one.
 */
describe('tracker registration', () => {
  let table: TestTable;
  let ref: TableRef;

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => {
    await table.close();
  });

  it('rides in the decisions’ batch, one request, and is listed as a registration', async () => {
    const own = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const trackers = dynamoClusterTrackers(own, 3_600);
    const writer = dynamoRolloutWriter(own, 86_400);
    const sha = 'd'.repeat(40);
    const now = new Date('2026-12-03T06:00:00Z');
    const sent = recordCommands(own);
    const registration = trackers.registration?.('east', sha, now);
    expect(registration).toBeDefined();
    await writer.recordDecisions(
      sha,
      'east#2026-12-03T06:00:00Z#d1#000',
      [{ cluster: 'east', kind: 'Application', namespace: 'argocd', name: 'web', decision: 'refreshed' }],
      { withProgress: true, alongside: registration === undefined ? [] : [registration] },
    );
    // The decisions and the registration in one BatchWriteItem, then the count of the cluster's decisions.
    expect(sent).toEqual(['BatchWriteCommand', 'QueryCommand']);
    const listed = await trackers.list('east');
    expect(listed.map((r) => [r.sha, r.addedAt])).toEqual([[sha, now.toISOString()]]);
  });

  it('takes a new stamp on every registration, so an older one read by a poll cannot drop it', async () => {
    const trackers = dynamoClusterTrackers(ref, 3_600);
    const sha = 'e'.repeat(40);
    const now = new Date('2026-12-03T06:00:00Z');
    await trackers.register('west', sha, now);
    const [first] = await trackers.list('west');
    // Registered again in the same millisecond (another push of the commit): a different stamp.
    await trackers.register('west', sha, now);
    const [second] = await trackers.list('west');
    expect(second?.adds).not.toBe(first?.adds);
    expect(Number.isSafeInteger(second?.adds)).toBe(true);
    expect(await trackers.unregister('west', first as NonNullable<typeof first>)).toBe(false);
    expect((await trackers.list('west')).length).toBe(1);
    expect(await trackers.unregister('west', second as NonNullable<typeof second>)).toBe(true);
    expect(await trackers.list('west')).toEqual([]);
  });
});
