import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWriteAll } from '../../../lib/store/batch-write.js';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '../../../lib/store/document-client.js';
import {
  createTableRef,
  decodeCursor,
  encodeCursor,
  isConditionFailure,
  type TableRef,
} from '../../../lib/store/dynamo.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { type FaultProxy, startFaultProxy } from '../../helpers/fault-proxy.js';

// The store's document commands over the low-level client, against dynalite (through the fault proxy, which
// passes everything on unless a test injects an answer).
describe('the store document commands (dynalite)', () => {
  let table: TestTable;
  let proxy: FaultProxy;
  let ref: TableRef;
  let n = 0;
  const nextPk = () => `DOC#${++n}`;
  beforeAll(async () => {
    table = await startTestTable();
    proxy = await startFaultProxy(table.endpoint);
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: proxy.endpoint });
  });
  afterAll(async () => {
    ref.doc.destroy();
    await proxy.close();
    await table.close();
  });
  const get = async (pk: string, sk = '#') =>
    (
      await ref.doc.send(
        new GetCommand({ TableName: table.tableName, Key: { pk, sk }, ConsistentRead: true }),
      )
    ).Item;

  it('leaves undefined attributes out of an item, at the top and inside maps', async () => {
    const pk = nextPk();
    await ref.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk, sk: '#', kept: 'yes', gone: undefined, nested: { a: 1, b: undefined } },
      }),
    );
    expect(await get(pk)).toEqual({ pk, sk: '#', kept: 'yes', nested: { a: 1 } });
  });

  it('reads back nested maps, lists, numbers, booleans, null and empty strings as they were written', async () => {
    const pk = nextPk();
    const item = {
      pk,
      sk: '#',
      counter: 0,
      epoch: 1_796_000_000,
      ms: 1_764_590_400_123,
      ratio: 0.25,
      negative: -3,
      ok: true,
      none: null,
      empty: '',
      views: { 'cluster-a': { c: { synced: 3, failed: 1 }, v: 12, f: '2026-12-01T10:00:00.000Z' } },
      list: ['a', 2, { deep: [true] }],
      emptyList: [],
      emptyMap: {},
    };
    await ref.doc.send(new PutCommand({ TableName: table.tableName, Item: item }));
    const read = await get(pk);
    expect(read).toEqual(item);
    expect(typeof read?.epoch).toBe('number');
  });

  it('keeps a string set a set', async () => {
    const pk = nextPk();
    await ref.doc.send(
      new PutCommand({ TableName: table.tableName, Item: { pk, sk: '#', tags: new Set(['a', 'b']) } }),
    );
    expect((await get(pk))?.tags).toEqual(new Set(['a', 'b']));
  });

  it('refuses a class instance (a Date) instead of storing its fields', async () => {
    const put = ref.doc.send(
      new PutCommand({ TableName: table.tableName, Item: { pk: nextPk(), sk: '#', at: new Date() } }),
    );
    await expect(put).rejects.toThrow();
  });

  it('marshals expression values, counts with ADD and returns the new item unmarshalled', async () => {
    const pk = nextPk();
    const add = () =>
      ref.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk, sk: '#' },
          UpdateExpression: 'SET #m = :m ADD adds :one',
          ExpressionAttributeNames: { '#m': 'meta' },
          ExpressionAttributeValues: { ':m': { by: 'track', at: 7 }, ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      );
    await add();
    const { Attributes } = await add();
    expect(Attributes).toEqual({ pk, sk: '#', adds: 2, meta: { by: 'track', at: 7 } });
  });

  it('fails a write whose condition does not hold with an error isConditionFailure recognises', async () => {
    const pk = nextPk();
    const create = () =>
      ref.doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { pk, sk: '#' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    await create();
    const error = await create().catch((e: unknown) => e);
    expect(isConditionFailure(error)).toBe(true);
    const update = await ref.doc
      .send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk, sk: '#' },
          UpdateExpression: 'SET v = :next',
          ConditionExpression: 'v = :expected',
          ExpressionAttributeValues: { ':next': 2, ':expected': 1 },
        }),
      )
      .catch((e: unknown) => e);
    expect(isConditionFailure(update)).toBe(true);
  });

  it('returns the old item of a delete unmarshalled, and nothing for a missing one', async () => {
    const pk = nextPk();
    await ref.doc.send(new PutCommand({ TableName: table.tableName, Item: { pk, sk: '#', n: 5 } }));
    const del = () =>
      ref.doc.send(
        new DeleteCommand({ TableName: table.tableName, Key: { pk, sk: '#' }, ReturnValues: 'ALL_OLD' }),
      );
    expect((await del()).Attributes).toEqual({ pk, sk: '#', n: 5 });
    expect((await del()).Attributes).toBeUndefined();
    expect(await get(pk)).toBeUndefined();
  });

  it('pages a query with a cursor that holds the plain key and starts the next page from it', async () => {
    const pk = nextPk();
    for (let i = 0; i < 5; i++) {
      await ref.doc.send(new PutCommand({ TableName: table.tableName, Item: { pk, sk: `APP#${i}`, i } }));
    }
    const page = (cursor?: string) =>
      ref.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': 'APP#' },
          Limit: 2,
          ExclusiveStartKey: decodeCursor(cursor),
        }),
      );
    const seen: number[] = [];
    let cursor: string | undefined;
    const cursors: string[] = [];
    do {
      const result = await page(cursor);
      seen.push(...(result.Items ?? []).map((item) => item.i as number));
      cursor = encodeCursor(result.LastEvaluatedKey);
      if (cursor !== undefined) cursors.push(cursor);
    } while (cursor !== undefined);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    // The API's cursor format: base64url JSON of the key as plain values, not DynamoDB's attribute values.
    expect(JSON.parse(Buffer.from(cursors[0] ?? '', 'base64url').toString('utf8'))).toEqual({
      pk,
      sk: 'APP#1',
    });
  });

  it('sends the items DynamoDB handed back unprocessed again, with their values intact', async () => {
    const pk = nextPk();
    const items = Array.from({ length: 4 }, (_, i) => ({
      pk,
      sk: `APP#${i}`,
      version: i + 1,
      view: { v: i },
    }));
    // The first BatchWriteItem writes nothing and hands the first two back, as a throttled table would.
    const rule = proxy.inject({
      operation: 'BatchWriteItem',
      fault: {
        answer: (body) => {
          const requests = (body.RequestItems as Record<string, unknown[]>)[table.tableName] ?? [];
          return { UnprocessedItems: { [table.tableName]: requests.slice(0, 2) } };
        },
      },
    });
    await batchWriteAll(
      ref,
      items.map((Item) => ({ PutRequest: { Item } })),
      { sleep: async () => undefined },
    );
    expect(rule.hits).toBe(1);
    // Only the two handed back were written (the faked first call wrote none).
    expect(await get(pk, 'APP#0')).toEqual(items[0]);
    expect(await get(pk, 'APP#1')).toEqual(items[1]);
    expect(await get(pk, 'APP#2')).toBeUndefined();
  });
});
