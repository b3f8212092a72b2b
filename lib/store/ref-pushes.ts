import type { RefPushes } from '../rollouts/ports/ref-pushes.js';
import { PutCommand, QueryCommand } from './document-client.js';
import type { TableRef } from './dynamo.js';
import { refPk } from './keys.js';

/**
 * The pushes each ref received (`before` → `after`), kept for a day, so an older push processed after a
 * newer one is recognised as superseded even for a repository the orchestrator may not read.
 */
const RECENT = 50;

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
    async recent(repoKey, ref) {
      const page = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': refPk(repoKey, ref) },
          ScanIndexForward: false,
          Limit: RECENT,
          ConsistentRead: true,
        }),
      );
      return (page.Items ?? []).map((item) => ({
        repoKey: String(item.repoKey),
        ref: String(item.ref),
        before: String(item.before),
        after: String(item.after),
        receivedAt: String(item.receivedAt),
        forced: item.forced === true,
      }));
    },
  };
}
