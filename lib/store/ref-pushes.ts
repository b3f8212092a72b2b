import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { RefPushes } from '../rollouts/rollout-store.js';
import type { TableRef } from './dynamo.js';
import { refPk } from './keys.js';

/**
 * The pushes each ref received, in the order the Git host sent them (`receivedAt`), kept for a day: the
 * latest one names the commit the ref points at now, so an older push processed after a newer one is
 * recognised as superseded even for a repository the orchestrator may not read.
 */
export function dynamoRefPushes(table: TableRef, ttlSeconds: number): RefPushes {
  return {
    async record(push) {
      await table.doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: {
            pk: refPk(push.repoKey, push.ref),
            sk: `${push.receivedAt}#${push.after}`,
            ...push,
            expiresAt: Math.floor(Date.parse(push.receivedAt) / 1000) + ttlSeconds,
          },
        }),
      );
    },
    async head(repoKey, ref) {
      const page = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': refPk(repoKey, ref) },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      const latest = page.Items?.[0];
      return latest === undefined
        ? undefined
        : { sha: String(latest.after), receivedAt: String(latest.receivedAt) };
    },
  };
}
