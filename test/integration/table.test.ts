import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/dynamodb.js';
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
});
