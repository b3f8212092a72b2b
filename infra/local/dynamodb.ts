import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { awsRequestHandler } from '../../lib/aws/http-handler.js';
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

/** Creates the table from infra/dynamodb-table.yml unless it exists already. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'exists';
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(new CreateTableCommand(tableDefinition(tableName).create));
  return 'created';
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
