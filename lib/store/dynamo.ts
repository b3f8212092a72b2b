import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type AwsHttpOptions, awsRequestHandler } from '../aws/http-handler.js';
import { BadRequestError } from '../errors.js';
import { type DocumentClient, documentClient, type NativeItem, QueryCommand } from './document-client.js';

export interface TableRef {
  readonly client: DynamoDBClient;
  readonly doc: DocumentClient;
  readonly tableName: string;
}

/** One client per cold start; `endpoint` points it at dynalite locally and in tests. */
export function createTableRef(options: {
  tableName: string;
  region: string;
  endpoint?: string;
  http?: AwsHttpOptions;
  /** The SDK's tries per call (its default 3). */
  maxAttempts?: number;
}): TableRef {
  // Fan-out and track write hundreds of records at once: more sockets than the SDK's default 50.
  const client = new DynamoDBClient({
    region: options.region,
    // The middleware stack is resolved once per command class, not on every request (CPU per request).
    cacheMiddleware: true,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    requestHandler: awsRequestHandler({ maxSockets: 256, ...options.http }),
    ...(options.endpoint === undefined
      ? {}
      : { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  });
  return { client, doc: documentClient(client), tableName: options.tableName };
}

export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/** Opaque pagination cursor: the LastEvaluatedKey, base64url JSON. */
export function encodeCursor(key: Record<string, unknown> | undefined): string | undefined {
  return key === undefined ? undefined : Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // fall through: a cursor that does not decode is the caller's mistake
  }
  throw new BadRequestError('cursor is not valid');
}

/** A start key DynamoDB rejects came from the caller's cursor: their mistake, not ours. */
export async function withCallerCursor<T>(cursor: string | undefined, query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    if (cursor !== undefined && (error as { name?: string }).name === 'ValidationException') {
      throw new BadRequestError('cursor is not valid', { cause: error });
    }
    throw error;
  }
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** Every item of one partition whose sort key starts with `skPrefix`, all pages, strongly consistent. */
export async function queryAll(table: TableRef, pk: string, skPrefix: string): Promise<NativeItem[]> {
  const items: NativeItem[] = [];
  let start: NativeItem | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** For writes whose condition failing means someone else got there first: nothing to do. */
export function ignoreConditionFailure(error: unknown): void {
  if (!isConditionFailure(error)) throw error;
}
