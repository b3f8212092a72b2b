import { createHash } from 'node:crypto';
import type { LoginStates } from '../ui-auth/login-states.js';
import { PutCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';

/** The state's hash only: the item says a login came back, and holds nothing that could start one. */
export function loginStatePk(state: string): string {
  return `LOGIN#${createHash('sha256').update(state, 'utf8').digest('base64url')}`;
}

/** A conditional put per state (DynamoDB TTL on `expiresAt`): the second callback with it fails. */
export function dynamoLoginStates(table: TableRef, now: () => Date = () => new Date()): LoginStates {
  return {
    async consume(state, expiresAt) {
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              pk: loginStatePk(state),
              sk: '#',
              type: 'login-state',
              expiresAt: epochSeconds(expiresAt),
            },
            // DynamoDB deletes expired items lazily (dynalite never): an expired one no longer counts.
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': epochSeconds(now()) },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
}
