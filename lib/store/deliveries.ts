import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRecord, DeliveryStore } from '../ports.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { DELIVERY_SK, deliveryPk } from './keys.js';

/** Deliveries keyed on the provider's delivery id, kept for `ttlSeconds` (DynamoDB TTL on `expiresAt`). */
export function dynamoDeliveryStore(table: TableRef, ttlSeconds: number): DeliveryStore {
  return {
    async recordOnce(record: DeliveryRecord) {
      const receivedAt = new Date(record.receivedAt);
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              pk: deliveryPk(record.provider, record.deliveryId),
              sk: DELIVERY_SK,
              type: 'delivery',
              ...record,
              expiresAt: epochSeconds(receivedAt) + ttlSeconds,
            },
            // dynalite never expires items, and DynamoDB deletes them lazily: an expired record is not a duplicate.
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': epochSeconds(receivedAt) },
          }),
        );
        return 'recorded';
      } catch (error) {
        if (isConditionFailure(error)) return 'duplicate';
        throw error;
      }
    },
    async forget(provider: string, deliveryId: string) {
      await table.doc.send(
        new DeleteCommand({
          TableName: table.tableName,
          Key: { pk: deliveryPk(provider, deliveryId), sk: DELIVERY_SK },
        }),
      );
    },
  };
}
