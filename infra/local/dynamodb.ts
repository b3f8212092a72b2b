import type { AddressInfo } from 'node:net';
import {
  type AttributeValue,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  DynamoDBClient,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { awsRequestHandler } from '../../lib/aws/http-handler.js';
import { batchWriteAll } from '../../lib/store/batch-write.js';
import { documentClient, fromAttributes } from '../../lib/store/document-client.js';
import { tableDefinition } from '../table-definition.js';

export interface LocalDynamo {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Starts dynalite on loopback: in memory, or on disk under `dataDir`. */
export async function startDynalite(options: { port?: number; dataDir?: string } = {}): Promise<LocalDynamo> {
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir === undefined ? {} : { path: options.dataDir }),
  });
  // Outlive the SDK's idle keep-alive sockets, or a reused socket the server just closed resets mid-request.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 121_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets live 120 s; a closing stack must not wait for them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Creates the table from infra/dynamodb-table.yml unless it exists already. A table kept on disk from an
 * earlier version that lacks an index the file added since is made again with its items (dynalite cannot add
 * an index to a table, as DynamoDB can): `updated`. Only with `rebuild` (the stack's own dynalite): any other
 * endpoint's table is never deleted here, and a missing index is an error that names it.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: { readonly rebuild?: boolean } = {},
): Promise<'created' | 'exists' | 'updated'> {
  const wanted = tableDefinition(tableName).create;
  let existing: DescribeTableCommandOutput;
  try {
    existing = await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    await client.send(new CreateTableCommand(wanted));
    return 'created';
  }
  const have = new Set((existing.Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  const missing = (wanted.GlobalSecondaryIndexes ?? []).filter((i) => !have.has(i.IndexName ?? ''));
  if (missing.length === 0) return 'exists';
  if (options.rebuild !== true)
    throw new Error(
      `table ${tableName} lacks the index(es) ${missing.map((i) => i.IndexName).join(', ')} of infra/dynamodb-table.yml: add them (aws dynamodb update-table) or start with a fresh table`,
    );
  const items = await allItems(client, tableName);
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  await client.send(new CreateTableCommand(wanted));
  // Put back as the store writes (batches of 25, unprocessed items sent again).
  await batchWriteAll(
    { client, doc: documentClient(client), tableName },
    items.map((Item) => ({ PutRequest: { Item: fromAttributes(Item) } })),
  );
  return 'updated';
}

async function allItems(
  client: DynamoDBClient,
  tableName: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ...(start === undefined ? {} : { ExclusiveStartKey: start }) }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** A DynamoDB client for a local endpoint (dummy credentials; dynalite does not check them). */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: awsRequestHandler(),
  });
}
