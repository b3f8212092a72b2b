import type { DeliveryClaim, DeliveryRecord, DeliveryState, DeliveryStore } from '../ports.js';
import { GetCommand, PutCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { DELIVERY_SK, deliveryPk } from './keys.js';

export interface DeliveryStoreOptions {
  /** How long a claim on a delivery not yet enqueued holds off other callers (default 30 s). */
  readonly leaseSeconds?: number;
  readonly now?: () => number;
}

/**
 * Deliveries keyed on the provider's delivery id, kept for `ttlSeconds` (DynamoDB TTL on `expiresAt`).
 * An item is `received` (with a lease `leaseUntil`, epoch ms) until its push is enqueued, then `enqueued`;
 * items written before states existed carry none and count as enqueued.
 */
export function dynamoDeliveryStore(
  table: TableRef,
  ttlSeconds: number,
  options: DeliveryStoreOptions = {},
): DeliveryStore {
  const leaseMs = (options.leaseSeconds ?? 30) * 1000;
  const now = options.now ?? Date.now;
  const key = (provider: string, deliveryId: string) => ({
    pk: deliveryPk(provider, deliveryId),
    sk: DELIVERY_SK,
  });

  const state = async (provider: string, deliveryId: string): Promise<DeliveryState | undefined> => {
    const { Item } = await table.doc.send(
      new GetCommand({ TableName: table.tableName, Key: key(provider, deliveryId), ConsistentRead: true }),
    );
    if (Item === undefined) return undefined;
    return Item.state === 'received' ? 'received' : 'enqueued';
  };

  return {
    async claim(record: DeliveryRecord): Promise<DeliveryClaim> {
      const at = now();
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              ...key(record.provider, record.deliveryId),
              type: 'delivery',
              ...record,
              state: 'received',
              leaseUntil: at + leaseMs,
              expiresAt: epochSeconds(new Date(record.receivedAt)) + ttlSeconds,
            },
            // dynalite never expires items, and DynamoDB deletes them lazily: an expired record is not a
            // duplicate. A record never enqueued is taken over once its lease has ended.
            ConditionExpression:
              'attribute_not_exists(pk) OR expiresAt < :nowSeconds OR (#state = :received AND leaseUntil < :nowMs)',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':nowSeconds': epochSeconds(new Date(record.receivedAt)),
              ':nowMs': at,
              ':received': 'received',
            },
          }),
        );
        return 'claimed';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      // dynalite has no ReturnValuesOnConditionCheckFailure: read the item that won.
      return (await state(record.provider, record.deliveryId)) === 'received' ? 'busy' : 'enqueued';
    },

    async markEnqueued(provider: string, deliveryId: string) {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key(provider, deliveryId),
          UpdateExpression: 'SET #state = :enqueued, enqueuedAt = :at REMOVE leaseUntil',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':enqueued': 'enqueued', ':at': new Date(now()).toISOString() },
        }),
      );
    },

    async release(provider: string, deliveryId: string) {
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: key(provider, deliveryId),
            UpdateExpression: 'SET leaseUntil = :zero',
            ConditionExpression: '#state = :received',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':zero': 0, ':received': 'received' },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    state,
  };
}
