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

  it('records a delivery once and calls the second one a duplicate', async () => {
    expect(await store.recordOnce(delivery('d-1'))).toBe('recorded');
    expect(await store.recordOnce(delivery('d-1'))).toBe('duplicate');
  });

  it('keeps the same delivery id of two providers apart', async () => {
    expect(await store.recordOnce(delivery('d-2'))).toBe('recorded');
    expect(await store.recordOnce({ ...delivery('d-2'), provider: 'gitlab' })).toBe('recorded');
  });

  it('records again a delivery whose TTL has passed but that DynamoDB has not yet deleted', async () => {
    expect(await store.recordOnce(delivery('d-3', '2026-11-01T00:00:00.000Z'))).toBe('recorded');
    expect(await store.recordOnce(delivery('d-3', '2026-11-30T00:00:00.000Z'))).toBe('recorded');
  });

  it('forgets a delivery so its redelivery is recorded', async () => {
    await store.recordOnce(delivery('d-4'));
    await store.forget('github', 'd-4');
    expect(await store.recordOnce(delivery('d-4'))).toBe('recorded');
  });

  it('answers duplicate to exactly one of many concurrent writers of one delivery', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => store.recordOnce(delivery('d-5'))));
    expect(results.filter((r) => r === 'recorded')).toHaveLength(1);
  });
});
