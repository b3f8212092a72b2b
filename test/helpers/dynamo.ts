import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ensureTable,
  type LocalDynamo,
  localDynamoClient,
  startDynalite,
} from '../../infra/local/dynamodb.js';
import { BatchWriteCommand } from '../../lib/store/document-client.js';
import { createTableRef } from '../../lib/store/dynamo.js';

export interface TestTable {
  readonly endpoint: string;
  readonly tableName: string;
  readonly client: DynamoDBClient;
  close(): Promise<void>;
}

/** A fresh dynalite on loopback with the real table created from infra/dynamodb-table.yml. */
export async function startTestTable(): Promise<TestTable> {
  const dynamo: LocalDynamo = await startDynalite();
  const client = localDynamoClient(dynamo.endpoint);
  const tableName = `test-${randomUUID().slice(0, 8)}`;
  await ensureTable(client, tableName);
  return {
    endpoint: dynamo.endpoint,
    tableName,
    client,
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
}

/** Records the name of each command sent through a table's document client (which requests a path makes). */
export function recordCommands(table: { readonly doc: { send: (...args: never[]) => unknown } }): string[] {
  const sent: string[] = [];
  const send = table.doc.send.bind(table.doc);
  (table.doc as { send: unknown }).send = (command: object) => {
    sent.push(command.constructor.name);
    return send(command as never);
  };
  return sent;
}

/**
 * A table ref whose first BatchWriteItem carrying a lease item (`LEASE#…`, a release in the last batch) has
 * DynamoDB take the release and every put but the first two, which it hands back unprocessed; `meanwhile`
 * runs between (another writer, now that the lease is free). `handedBack()` says whether that happened.
 */
export function handBackBesideRelease(table: TestTable, meanwhile: () => Promise<void>) {
  const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  const send = ref.doc.send.bind(ref.doc);
  let handedBack = false;
  (ref.doc as { send: unknown }).send = async (command: {
    input: { RequestItems?: Record<string, { PutRequest: { Item: { sk: string } } }[]> };
  }) => {
    const requests = command.input.RequestItems?.[table.tableName];
    if (
      handedBack ||
      requests === undefined ||
      !requests.some((r) => r.PutRequest.Item.sk.startsWith('LEASE#'))
    )
      return send(command as never);
    handedBack = true;
    const output = await send(
      new BatchWriteCommand({ RequestItems: { [table.tableName]: requests.slice(2) } }) as never,
    );
    await meanwhile();
    return { ...(output as object), UnprocessedItems: { [table.tableName]: requests.slice(0, 2) } };
  };
  return { ref, handedBack: () => handedBack };
}
