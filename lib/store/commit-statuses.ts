import type { PostedStatuses } from '../commit-status/commit-status-notice.js';
import { DeleteCommand, PutCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { rolloutPk, statusSk } from './keys.js';

/**
 * What was posted to the Git host per status context, under the rollout (`STATUS#<context>`): a claim
 * written before posting, so two pollers never post the same state twice and an older view (lower rank)
 * never overwrites a later one.
 */
export function dynamoPostedStatuses(table: TableRef, ttlSeconds: number): PostedStatuses {
  const key = (sha: string, context: string) => ({ pk: rolloutPk(sha), sk: statusSk(context) });
  return {
    async claim(sha, context, posted, rank) {
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              ...key(sha, context),
              type: 'commit-status',
              posted,
              rank,
              claimedAt: new Date().toISOString(),
              expiresAt: epochSeconds(new Date()) + ttlSeconds,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR (posted <> :posted AND #rank <= :rank)',
            ExpressionAttributeNames: { '#rank': 'rank' },
            ExpressionAttributeValues: { ':posted': posted, ':rank': rank },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
    async release(sha, context, posted) {
      await table.doc
        .send(
          new DeleteCommand({
            TableName: table.tableName,
            Key: key(sha, context),
            ConditionExpression: 'posted = :posted',
            ExpressionAttributeValues: { ':posted': posted },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    },
  };
}
