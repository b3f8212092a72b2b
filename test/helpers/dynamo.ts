import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ensureTable,
  type LocalDynamo,
  localDynamoClient,
  startDynalite,
} from '../../infra/local/dynamodb.js';

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
