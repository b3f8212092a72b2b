import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, PutCommand } from '../../../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../../../lib/store/dynamo.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { type FaultProxy, matchKey, startFaultProxy } from '../../helpers/fault-proxy.js';

describe('the fault-injecting proxy in front of dynalite', () => {
  let table: TestTable;
  let proxy: FaultProxy;
  let ref: TableRef;
  beforeAll(async () => {
    table = await startTestTable();
    proxy = await startFaultProxy(table.endpoint);
    ref = createTableRef({
      tableName: table.tableName,
      region: 'local',
      endpoint: proxy.endpoint,
      http: { requestTimeoutMs: 300 },
    });
  });
  afterAll(async () => {
    ref.client.destroy();
    await proxy.close();
    await table.close();
  });
  const put = (pk: string) =>
    ref.doc.send(new PutCommand({ TableName: table.tableName, Item: { pk, sk: '#', n: 1 } }));

  it('passes requests that match no rule through to dynalite', async () => {
    await put('PLAIN#1');
    const { Item } = await ref.doc.send(
      new GetCommand({ TableName: table.tableName, Key: { pk: 'PLAIN#1', sk: '#' } }),
    );
    expect(Item?.n).toBe(1);
  });

  it('answers a matching write with ConditionalCheckFailedException, once, and lets others through', async () => {
    const rule = proxy.inject({
      operation: 'PutItem',
      match: matchKey('CLAIM#'),
      fault: 'conditional-check-failed',
    });
    await put('OTHER#1');
    await expect(put('CLAIM#1')).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    await put('CLAIM#1');
    expect(rule.hits).toBe(1);
  });

  it('throttles as DynamoDB does; the SDK retries, then gives up with the service error', async () => {
    const rule = proxy.inject({ operation: 'PutItem', fault: 'throttling', times: Number.POSITIVE_INFINITY });
    await expect(put('T#1')).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(rule.hits).toBeGreaterThan(1);
    proxy.clear();
  });

  it('hangs a request until the client times out', async () => {
    proxy.inject({ operation: 'GetItem', fault: 'hang', times: Number.POSITIVE_INFINITY });
    await expect(
      ref.doc.send(new GetCommand({ TableName: table.tableName, Key: { pk: 'PLAIN#1', sk: '#' } })),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    proxy.clear();
  });
});
