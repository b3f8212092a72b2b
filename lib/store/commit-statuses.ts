import type { PostedStatuses } from '../commit-status/commit-status-notice.js';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { rolloutPk, statusSk } from './keys.js';

/**
 * What was posted to the Git host per status context, under the rollout (`STATUS#<context>`): a claim
 * written before posting, so two pollers never post the same state twice and an older view (lower rank)
 * never overwrites a later one. A failed post releases the claim but keeps the host's last error there.
 */
export function dynamoPostedStatuses(
  table: TableRef,
  ttlSeconds: number,
): PostedStatuses & {
  /** The last error the host gave for this context (cleared by the next claim), if any. */
  lastError(sha: string, context: string): Promise<{ error: string; at: string } | undefined>;
} {
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
            ConditionExpression:
              'attribute_not_exists(pk) OR attribute_not_exists(posted) OR (posted <> :posted AND #rank <= :rank)',
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
    async release(sha, context, posted, error) {
      const released = (thrown: unknown) => {
        if (!isConditionFailure(thrown)) throw thrown;
      };
      if (error !== undefined) {
        // Unclaimed (no posted, no rank: any view may claim again), the error kept for the rollout's feedback.
        await table.doc
          .send(
            new UpdateCommand({
              TableName: table.tableName,
              Key: key(sha, context),
              UpdateExpression: 'SET lastError = :error, lastErrorAt = :at REMOVE posted, #rank',
              ConditionExpression: 'posted = :posted',
              ExpressionAttributeNames: { '#rank': 'rank' },
              ExpressionAttributeValues: {
                ':posted': posted,
                ':error': error,
                ':at': new Date().toISOString(),
              },
            }),
          )
          .catch(released);
        return;
      }
      await table.doc
        .send(
          new DeleteCommand({
            TableName: table.tableName,
            Key: key(sha, context),
            ConditionExpression: 'posted = :posted',
            ExpressionAttributeValues: { ':posted': posted },
          }),
        )
        .catch(released);
    },
    async lastError(sha, context) {
      const { Item } = await table.doc.send(
        new GetCommand({ TableName: table.tableName, Key: key(sha, context), ConsistentRead: true }),
      );
      return typeof Item?.lastError === 'string'
        ? { error: Item.lastError, at: String(Item.lastErrorAt ?? '') }
        : undefined;
    },
  };
}
