import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { trackerPk } from '../../../lib/store/keys.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { recordCommands, startTestTable, type TestTable } from '../../helpers/dynamo.js';

/**
 * A work item whose apps are to be followed registers the rollout on the cluster's chain item in the write
 * that claims the chain, its `adds` stamp new on every registration, so a poll that read an older
 * registration cannot drop a newer one; the poll that ends the chain drops its rollouts and releases the
 * lease in one write. Registrations an earlier version wrote as items of their own are read and dropped too.
 */
describe('tracker registration', () => {
  let table: TestTable;
  let ref: TableRef;
  const now = new Date('2026-12-03T06:00:00Z');
  const until = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => {
    await table.close();
  });

  it('rides in the chain’s claim, one request, and is listed as a registration', async () => {
    const own = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const trackers = dynamoClusterTrackers(own, 3_600);
    const sha = 'd'.repeat(40);
    const sent = recordCommands(own);
    expect(await trackers.claimChain('east', until(120), new Date(), sha)).toBeTruthy();
    expect(sent).toEqual(['UpdateCommand']);
    const listed = await trackers.list('east');
    expect(listed.map((r) => [r.sha, r.legacy])).toEqual([[sha, undefined]]);
    expect(Date.parse(listed[0]?.addedAt ?? '')).toBeGreaterThan(0);
    // A second rollout's claim finds the chain alive: registered all the same, and the chain marked touched.
    const before = (await trackers.read?.('east'))?.chain?.touched;
    expect(await trackers.claimChain('east', until(120), new Date(), 'e'.repeat(40))).toBeUndefined();
    const read = await trackers.read?.('east');
    expect(read?.registered.map((r) => r.sha)).toEqual([sha, 'e'.repeat(40)]);
    expect(read?.chain?.touched).not.toBe(before);
  });

  it('takes a new stamp on every registration, so an older one read by a poll cannot drop it', async () => {
    const trackers = dynamoClusterTrackers(ref, 3_600);
    const sha = 'e'.repeat(40);
    await trackers.register('west', sha, now);
    const [first] = await trackers.list('west');
    expect(first?.addedAt).toBe(now.toISOString());
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

  it('ends the chain in one write: its rollouts dropped and its lease released', async () => {
    const own = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const trackers = dynamoClusterTrackers(own, 3_600);
    const chain = (await trackers.claimChain('north', until(120), new Date(), 'a'.repeat(40))) as string;
    await trackers.claimChain('north', until(120), new Date(), 'b'.repeat(40));
    const read = await trackers.read?.('north');
    const sent = recordCommands(own);
    expect(
      await trackers.endChain?.('north', chain, read?.chain ?? { polled: false }, read?.registered ?? []),
    ).toBe(true);
    expect(sent).toEqual(['UpdateCommand']);
    const after = await trackers.read?.('north');
    expect(after?.registered).toEqual([]);
    expect(after?.chain?.chain).toBeUndefined();
    expect(after?.chain?.leaseUntil).toBeUndefined();
    // Free again: the next rollout's claim starts a chain.
    expect(await trackers.claimChain('north', until(120), new Date(), 'c'.repeat(40))).toBeTruthy();
  });

  it('keeps the chain and every registration when a rollout was registered after the poll’s read', async () => {
    const trackers = dynamoClusterTrackers(ref, 3_600);
    const chain = (await trackers.claimChain('south', until(120), new Date(), 'a'.repeat(40))) as string;
    const read = await trackers.read?.('south');
    // Fan-out of another commit, between the poll's read and its end.
    await trackers.register('south', 'f'.repeat(40), new Date());
    expect(
      await trackers.endChain?.('south', chain, read?.chain ?? { polled: false }, read?.registered ?? []),
    ).toBe(false);
    const after = await trackers.read?.('south');
    expect(after?.registered.map((r) => r.sha)).toEqual(['a'.repeat(40), 'f'.repeat(40)]);
    expect(after?.chain?.chain).toBe(chain);
  });

  it('reads and drops the registration items an earlier version wrote, which the one-write end leaves alone', async () => {
    const trackers = dynamoClusterTrackers(ref, 3_600);
    const chain = (await trackers.claimChain('old', until(120), new Date(), 'a'.repeat(40))) as string;
    const legacySha = '1'.repeat(40);
    await ref.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          pk: trackerPk('old'),
          sk: `ROLLOUT#${legacySha}`,
          sha: legacySha,
          addedAt: now.toISOString(),
          adds: 17,
          expiresAt: Math.floor(now.getTime() / 1000) + 3_600,
        },
      }),
    );
    const read = await trackers.read?.('old');
    expect(read?.registered.map((r) => [r.sha, r.legacy])).toEqual([
      ['a'.repeat(40), undefined],
      [legacySha, true],
    ]);
    expect(
      await trackers.endChain?.('old', chain, read?.chain ?? { polled: false }, read?.registered ?? []),
    ).toBe(false);
    expect((await trackers.list('old')).length).toBe(2);
    const legacy = read?.registered.find((r) => r.legacy === true);
    expect(await trackers.unregister('old', { ...(legacy as NonNullable<typeof legacy>), adds: 16 })).toBe(
      false,
    );
    expect(await trackers.unregister('old', legacy as NonNullable<typeof legacy>)).toBe(true);
    expect((await trackers.list('old')).map((r) => r.sha)).toEqual(['a'.repeat(40)]);
  });
});
