import type { ClusterLeases } from '../rollouts/ports/cluster-leases.js';
import { GetCommand, PutCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { clusterLeaseSk, rolloutPk } from './keys.js';

/**
 * The lease item as its release leaves it (`until` 0, still naming the holder), for a holder that puts it
 * in the last batch of its own writes instead of a release of its own (lib/store/app-transitions.ts).
 */
export function releasedLeaseItem(sha: string, cluster: string, holder: string) {
  return {
    pk: rolloutPk(sha),
    sk: clusterLeaseSk(cluster),
    type: 'lease',
    holder,
    until: 0,
    expiresAt: epochSeconds(new Date()) + 86_400,
  };
}

/**
 * One work item at a time per commit and cluster: a conditional put that succeeds when no lease is held or
 * the held one has run out (its holder's invocation ended without releasing it).
 */
export function dynamoClusterLeases(table: TableRef): ClusterLeases {
  const key = (sha: string, cluster: string) => ({ pk: rolloutPk(sha), sk: clusterLeaseSk(cluster) });
  return {
    async acquire(sha, cluster, holder, untilMs) {
      const now = Date.now();
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              ...key(sha, cluster),
              type: 'lease',
              holder,
              until: untilMs,
              expiresAt: epochSeconds(new Date(untilMs)) + 86_400,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return { held: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const { Item } = await table.doc.send(
          new GetCommand({ TableName: table.tableName, Key: key(sha, cluster), ConsistentRead: true }),
        );
        return {
          held: false,
          untilMs: Number(Item?.until ?? now + 60_000),
          ...(typeof Item?.holder === 'string' ? { holder: Item.holder } : {}),
        };
      }
    },
    async release(sha, cluster, holder) {
      await table.doc
        .send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: key(sha, cluster),
            UpdateExpression: 'SET #until = :zero',
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':zero': 0, ':holder': holder },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    },
  };
}
