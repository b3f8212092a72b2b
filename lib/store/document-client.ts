import {
  type AttributeValue,
  type WriteRequest as AttributeWriteRequest,
  BatchWriteItemCommand,
  type BatchWriteItemCommandInput,
  type BatchWriteItemCommandOutput,
  DeleteItemCommand,
  type DeleteItemCommandInput,
  type DeleteItemCommandOutput,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  type GetItemCommandOutput,
  PutItemCommand,
  type PutItemCommandInput,
  type PutItemCommandOutput,
  QueryCommand as QueryItemsCommand,
  type QueryCommandInput as QueryItemsCommandInput,
  type QueryCommandOutput as QueryItemsCommandOutput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
  type UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { marshall, type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';

/** An item, a key or a set of expression values as plain JavaScript values. */
export type NativeItem = Record<string, NativeAttributeValue>;

/**
 * A command of the store: it marshals its input, sends the low-level command and unmarshals the answer.
 * Each command class names the one table action it calls, so a bundle calls only the actions of the
 * commands it constructs (the IAM test derives each role from that).
 */
export interface DocumentCommand<Output> {
  sendThrough(client: DynamoDBClient): Promise<Output>;
}

/**
 * The store's replacement for lib-dynamodb's document client, over the low-level client: the document
 * client refuses `cacheMiddleware`, which saves SDK CPU on every request (`bench/dynamo-request-cpu.ts`).
 */
export interface DocumentClient {
  send<Output>(command: DocumentCommand<Output>): Promise<Output>;
  destroy(): void;
}

export function documentClient(client: DynamoDBClient): DocumentClient {
  return {
    send: (command) => command.sendThrough(client),
    destroy: () => client.destroy(),
  };
}

// Undefined attributes are left out (as the document client was configured); a class instance such as a
// Date is an error rather than a map of its fields.
const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

export function toAttributes(item: NativeItem): Record<string, AttributeValue> {
  return marshall(item, MARSHALL);
}

export function fromAttributes(item: Record<string, AttributeValue>): NativeItem {
  return unmarshall(item);
}

function optionalFromAttributes(item: Record<string, AttributeValue> | undefined): NativeItem | undefined {
  return item === undefined ? undefined : unmarshall(item);
}

function values(input: { ExpressionAttributeValues?: NativeItem | undefined }) {
  const native = input.ExpressionAttributeValues;
  return native === undefined ? {} : { ExpressionAttributeValues: toAttributes(native) };
}

type WithValues<T> = Omit<T, 'ExpressionAttributeValues'> & {
  ExpressionAttributeValues?: NativeItem | undefined;
};

export type GetCommandInput = Omit<GetItemCommandInput, 'Key'> & { Key: NativeItem };
export type GetCommandOutput = Omit<GetItemCommandOutput, 'Item'> & { Item?: NativeItem };

export class GetCommand implements DocumentCommand<GetCommandOutput> {
  constructor(readonly input: GetCommandInput) {}

  async sendThrough(client: DynamoDBClient): Promise<GetCommandOutput> {
    const { Item, ...rest } = await client.send(
      new GetItemCommand({ ...this.input, Key: toAttributes(this.input.Key) }),
    );
    return Item === undefined ? rest : { ...rest, Item: fromAttributes(Item) };
  }
}

export type PutCommandInput = WithValues<Omit<PutItemCommandInput, 'Item' | 'Expected'>> & {
  Item: NativeItem;
};
export type PutCommandOutput = Omit<PutItemCommandOutput, 'Attributes'> & {
  Attributes?: NativeItem;
};

export class PutCommand implements DocumentCommand<PutCommandOutput> {
  constructor(readonly input: PutCommandInput) {}

  async sendThrough(client: DynamoDBClient): Promise<PutCommandOutput> {
    const { Attributes, ...rest } = await client.send(
      new PutItemCommand({ ...this.input, Item: toAttributes(this.input.Item), ...values(this.input) }),
    );
    return Attributes === undefined ? rest : { ...rest, Attributes: fromAttributes(Attributes) };
  }
}

export type UpdateCommandInput = WithValues<
  Omit<UpdateItemCommandInput, 'Key' | 'Expected' | 'AttributeUpdates'>
> & { Key: NativeItem };
export type UpdateCommandOutput = Omit<UpdateItemCommandOutput, 'Attributes'> & {
  Attributes?: NativeItem;
};

export class UpdateCommand implements DocumentCommand<UpdateCommandOutput> {
  constructor(readonly input: UpdateCommandInput) {}

  async sendThrough(client: DynamoDBClient): Promise<UpdateCommandOutput> {
    const { Attributes, ...rest } = await client.send(
      new UpdateItemCommand({ ...this.input, Key: toAttributes(this.input.Key), ...values(this.input) }),
    );
    return Attributes === undefined ? rest : { ...rest, Attributes: fromAttributes(Attributes) };
  }
}

export type DeleteCommandInput = WithValues<Omit<DeleteItemCommandInput, 'Key' | 'Expected'>> & {
  Key: NativeItem;
};
export type DeleteCommandOutput = Omit<DeleteItemCommandOutput, 'Attributes'> & {
  Attributes?: NativeItem;
};

export class DeleteCommand implements DocumentCommand<DeleteCommandOutput> {
  constructor(readonly input: DeleteCommandInput) {}

  async sendThrough(client: DynamoDBClient): Promise<DeleteCommandOutput> {
    const { Attributes, ...rest } = await client.send(
      new DeleteItemCommand({ ...this.input, Key: toAttributes(this.input.Key), ...values(this.input) }),
    );
    return Attributes === undefined ? rest : { ...rest, Attributes: fromAttributes(Attributes) };
  }
}

export type QueryCommandInput = WithValues<
  Omit<QueryItemsCommandInput, 'ExclusiveStartKey' | 'KeyConditions' | 'QueryFilter'>
> & { ExclusiveStartKey?: NativeItem | undefined };
export type QueryCommandOutput = Omit<QueryItemsCommandOutput, 'Items' | 'LastEvaluatedKey'> & {
  Items?: NativeItem[];
  LastEvaluatedKey?: NativeItem;
};

export class QueryCommand implements DocumentCommand<QueryCommandOutput> {
  constructor(readonly input: QueryCommandInput) {}

  async sendThrough(client: DynamoDBClient): Promise<QueryCommandOutput> {
    const { ExclusiveStartKey: start, ...input } = this.input;
    const { Items, LastEvaluatedKey, ...rest } = await client.send(
      new QueryItemsCommand({
        ...input,
        ...values(input),
        ...(start === undefined ? {} : { ExclusiveStartKey: toAttributes(start) }),
      }),
    );
    const last = optionalFromAttributes(LastEvaluatedKey);
    return {
      ...rest,
      ...(Items === undefined ? {} : { Items: Items.map(fromAttributes) }),
      ...(last === undefined ? {} : { LastEvaluatedKey: last }),
    };
  }
}

/** One put or delete of a BatchWriteItem, in plain values. */
export interface WriteRequest {
  PutRequest?: { Item: NativeItem };
  DeleteRequest?: { Key: NativeItem };
}

export type BatchWriteCommandInput = Omit<BatchWriteItemCommandInput, 'RequestItems'> & {
  RequestItems: Record<string, WriteRequest[]>;
};
export type BatchWriteCommandOutput = Omit<BatchWriteItemCommandOutput, 'UnprocessedItems'> & {
  UnprocessedItems?: Record<string, WriteRequest[]>;
};

export class BatchWriteCommand implements DocumentCommand<BatchWriteCommandOutput> {
  constructor(readonly input: BatchWriteCommandInput) {}

  async sendThrough(client: DynamoDBClient): Promise<BatchWriteCommandOutput> {
    const { UnprocessedItems, ...rest } = await client.send(
      new BatchWriteItemCommand({
        ...this.input,
        RequestItems: mapTables(this.input.RequestItems, toAttributeRequest),
      }),
    );
    return UnprocessedItems === undefined
      ? rest
      : { ...rest, UnprocessedItems: mapTables(UnprocessedItems, fromAttributeRequest) };
  }
}

function mapTables<A, B>(byTable: Record<string, A[]>, convert: (request: A) => B): Record<string, B[]> {
  const out: Record<string, B[]> = {};
  for (const [table, requests] of Object.entries(byTable)) out[table] = requests.map(convert);
  return out;
}

function toAttributeRequest({ PutRequest: put, DeleteRequest: del }: WriteRequest): AttributeWriteRequest {
  return {
    ...(put === undefined ? {} : { PutRequest: { Item: toAttributes(put.Item) } }),
    ...(del === undefined ? {} : { DeleteRequest: { Key: toAttributes(del.Key) } }),
  };
}

function fromAttributeRequest({ PutRequest: put, DeleteRequest: del }: AttributeWriteRequest): WriteRequest {
  return {
    ...(put?.Item === undefined ? {} : { PutRequest: { Item: fromAttributes(put.Item) } }),
    ...(del?.Key === undefined ? {} : { DeleteRequest: { Key: fromAttributes(del.Key) } }),
  };
}
