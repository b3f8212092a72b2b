import { mapWithConcurrency } from '../concurrency.js';
import type { AppTarget } from '../rollouts/app-model.js';
import { GetCommand, type NativeItem, QueryCommand } from './document-client.js';
import { decodeCursor, encodeCursor, type TableRef, withCallerCursor } from './dynamo.js';
import { GSI1, GSI4, historyPk } from './keys.js';

/** Items of a history page read at once by key. */
const GET_CONCURRENCY = 10;

/**
 * One page of an app's records across commits, newest first, and the cursor of the next. App items carry
 * their history keys on gsi4, a keys-only index (a state change then writes no index entry), and a page reads
 * them by key. Items written before gsi4 existed carry them on gsi1 (ALL) and follow once gsi4 has no more:
 * their rollouts are older than any written since (a rewrite keeps the item's keys; only a whole new record of
 * an old rollout, such as a retry's, moves to gsi4, listed there by its time). A record that expired between
 * the index and its read is left out.
 */
export async function historyPage(
  table: TableRef,
  target: Pick<AppTarget, 'cluster' | 'namespace' | 'name'>,
  page: { readonly limit: number; readonly cursor?: string },
): Promise<{ items: NativeItem[]; nextCursor?: string }> {
  const start = decodeCursor(page.cursor);
  const items: NativeItem[] = [];
  // A cursor names its index by its keys.
  let index = start !== undefined && 'gsi1pk' in start ? GSI1 : GSI4;
  let from = start;
  for (;;) {
    // Only a query from the caller's cursor can fail on it (the older index's first query starts at its top).
    const result = await withCallerCursor(from === undefined ? undefined : page.cursor, () =>
      table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: index,
          KeyConditionExpression: `${index}pk = :pk`,
          ExpressionAttributeValues: { ':pk': historyPk(target) },
          ScanIndexForward: false,
          Limit: page.limit - items.length,
          ...(from === undefined ? {} : { ExclusiveStartKey: from }),
        }),
      ),
    );
    const found = result.Items ?? [];
    items.push(...(index === GSI4 ? await itemsByKey(table, found) : found));
    if (result.LastEvaluatedKey !== undefined) return withCursor(items, result.LastEvaluatedKey);
    if (index === GSI1) return { items };
    // gsi4 has no more (a page it fills exactly ends with a start key above): the older records follow.
    index = GSI1;
    from = undefined;
  }
}

function withCursor(items: NativeItem[], key: NativeItem) {
  const nextCursor = encodeCursor(key);
  return nextCursor === undefined ? { items } : { items, nextCursor };
}

/** The items of a keys-only page, in its order (eventually consistent, as an index read is). */
async function itemsByKey(table: TableRef, keys: readonly NativeItem[]): Promise<NativeItem[]> {
  const settled = await mapWithConcurrency(keys, GET_CONCURRENCY, async (key) => {
    const { Item } = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: { pk: key.pk, sk: key.sk } }),
    );
    return Item;
  });
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.flatMap((s) => (s.status === 'fulfilled' && s.value !== undefined ? [s.value] : []));
}
