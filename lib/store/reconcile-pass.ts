import type { PassSummary } from '../reconcile/report.js';
import { GetCommand, PutCommand } from './document-client.js';
import type { TableRef } from './dynamo.js';
import { RECONCILE_PK } from './keys.js';

/** One item, pk `RECONCILE` sk `#LAST-PASS`: the last full reconcile pass, overwritten by each. */
const LAST_PASS_SK = '#LAST-PASS';

export async function recordLastPass(table: TableRef, pass: PassSummary): Promise<void> {
  await table.doc.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { pk: RECONCILE_PK, sk: LAST_PASS_SK, type: 'reconcile-pass', ...pass },
    }),
  );
}

/** The last full pass, or undefined when none has run against this table. */
export async function readLastPass(table: TableRef): Promise<PassSummary | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.tableName, Key: { pk: RECONCILE_PK, sk: LAST_PASS_SK } }),
  );
  if (Item === undefined || typeof Item.startedAt !== 'string') return undefined;
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  return {
    startedAt: Item.startedAt,
    durationMs: count(Item.durationMs),
    clustersRead: count(Item.clustersRead),
    clustersUnread: count(Item.clustersUnread),
    findingsOpen: count(Item.findingsOpen),
  };
}
