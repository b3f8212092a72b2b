import {
  CreateTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/dynamodb.js';
import { tableDefinition } from '../../infra/table-definition.js';
import { startTestTable, type TestTable } from '../helpers/dynamo.js';

describe('the table from infra/dynamodb-table.yml', () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(async () => {
    await table.close();
  });

  it('is created in dynalite with its keys, the short-SHA index, the rollout lists and the keys-only history index', async () => {
    const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
    expect(Table?.KeySchema?.map((k) => k.AttributeName)).toEqual(['pk', 'sk']);
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['gsi1', 'gsi2', 'gsi3', 'gsi4']);
  });

  it('is left alone when it exists already', async () => {
    expect(await ensureTable(table.client, table.tableName)).toBe('exists');
  });

  it('gets the indexes added since, items kept, when it was kept from an earlier version (gsi4)', async () => {
    const { create } = tableDefinition('older');
    await table.client.send(
      new CreateTableCommand({
        ...create,
        GlobalSecondaryIndexes: create.GlobalSecondaryIndexes?.filter((i) => i.IndexName !== 'gsi4'),
      }),
    );
    const items = Array.from({ length: 30 }, (_, i) => ({
      pk: { S: 'ROLLOUT#old' },
      sk: { S: `APP#${String(i).padStart(2, '0')}` },
      gsi1pk: { S: 'HISTORY#x' },
      gsi1sk: { S: String(i) },
    }));
    for (const Item of items) await table.client.send(new PutItemCommand({ TableName: 'older', Item }));
    // Another endpoint's table is never deleted: the missing index is named instead.
    await expect(ensureTable(table.client, 'older')).rejects.toThrow(/lacks the index\(es\) gsi4/);
    expect(await ensureTable(table.client, 'older', { rebuild: true })).toBe('updated');
    const { Items } = await table.client.send(new ScanCommand({ TableName: 'older' }));
    expect(Items?.map((i) => i.sk?.S).sort()).toEqual(items.map((i) => i.sk.S));
    const old = await table.client.send(
      new QueryCommand({
        TableName: 'older',
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'HISTORY#x' } },
      }),
    );
    expect(old.Count).toBe(30);
    const { Table } = await table.client.send(new DescribeTableCommand({ TableName: 'older' }));
    const gsi4 = Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === 'gsi4');
    expect(gsi4?.Projection?.ProjectionType).toBe('KEYS_ONLY');
    expect(gsi4?.KeySchema?.map((k) => k.AttributeName)).toEqual(['gsi4pk', 'gsi4sk']);
    expect(await ensureTable(table.client, 'older')).toBe('exists');
  });
});
