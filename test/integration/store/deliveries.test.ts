import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../../lib/ports.js';
import { dynamoDeliveryStore } from '../../../lib/store/deliveries.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const delivery = (id: string, receivedAt = '2026-11-30T10:00:00.000Z'): DeliveryRecord => ({
  provider: 'github',
  deliveryId: id,
  event: 'push',
  repo: 'org/gitops',
  ref: 'refs/heads/main',
  sha: 'a'.repeat(40),
  receivedAt,
});

describe('the DynamoDB delivery store', () => {
  let table: TestTable;
  let store: ReturnType<typeof dynamoDeliveryStore>;
  beforeAll(async () => {
    table = await startTestTable();
    store = dynamoDeliveryStore(
      createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint }),
      3600,
    );
  });
  afterAll(async () => table.close());

  it('claims a new delivery once; once enqueued, its redelivery is a duplicate', async () => {
    expect(await store.claim(delivery('d-1'))).toBe('claimed');
    expect(await store.state('github', 'd-1')).toBe('received');
    await store.markEnqueued('github', 'd-1');
    expect(await store.state('github', 'd-1')).toBe('enqueued');
    expect(await store.claim(delivery('d-1'))).toBe('enqueued');
  });

  it('keeps the same delivery id of two providers apart', async () => {
    expect(await store.claim(delivery('d-2'))).toBe('claimed');
    expect(await store.claim({ ...delivery('d-2'), provider: 'gitlab' })).toBe('claimed');
  });

  it('claims again a delivery whose TTL has passed but that DynamoDB has not yet deleted', async () => {
    expect(await store.claim(delivery('d-3', '2026-11-01T00:00:00.000Z'))).toBe('claimed');
    await store.markEnqueued('github', 'd-3');
    expect(await store.claim(delivery('d-3', '2026-11-30T00:00:00.000Z'))).toBe('claimed');
  });

  it('calls a delivery received but not enqueued busy while its lease holds, and claims it after release', async () => {
    expect(await store.claim(delivery('d-4'))).toBe('claimed');
    expect(await store.claim(delivery('d-4'))).toBe('busy');
    await store.release('github', 'd-4');
    expect(await store.claim(delivery('d-4'))).toBe('claimed');
  });

  it('claims a delivery whose claimer died once the lease has ended', async () => {
    let now = Date.parse('2026-11-30T10:00:00.000Z');
    const leased = dynamoDeliveryStore(
      createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint }),
      3600,
      { leaseSeconds: 30, now: () => now },
    );
    expect(await leased.claim(delivery('d-6'))).toBe('claimed');
    now += 29_000;
    expect(await leased.claim(delivery('d-6'))).toBe('busy');
    now += 2_000;
    expect(await leased.claim(delivery('d-6'))).toBe('claimed');
  });

  it('treats a delivery item written before states existed as enqueued', async () => {
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: {
          pk: { S: 'DELIVERY#github#d-7' },
          sk: { S: '#' },
          type: { S: 'delivery' },
          expiresAt: { N: String(Math.floor(Date.parse('2026-11-30T10:00:00.000Z') / 1000) + 3600) },
        },
      }),
    );
    expect(await store.claim(delivery('d-7'))).toBe('enqueued');
  });

  it('lets exactly one of many concurrent claimers of one delivery claim it', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => store.claim(delivery('d-5'))));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r === 'busy')).toHaveLength(7);
  });
});
