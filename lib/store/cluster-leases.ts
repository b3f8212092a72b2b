import type { ClusterLeases, HeldLease } from '../rollouts/ports/cluster-leases.js';
import { BATCH_SIZE, batchWriteAll, batchWriteOne } from './batch-write.js';
import { GetCommand, type NativeItem, PutCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { clusterLeaseSk, rolloutPk } from './keys.js';

/**
 * The lease item as its release leaves it (`until` 0, still naming the holder, its expiry kept), for a
 * holder that puts it in the last batch of its own writes instead of a release of its own.
 */
export function releasedLeaseItem(
  sha: string,
  cluster: string,
  lease: Pick<HeldLease, 'holder' | 'expiresAt'>,
) {
  return {
    pk: rolloutPk(sha),
    sk: clusterLeaseSk(cluster),
    type: 'lease',
    holder: lease.holder,
    until: 0,
    expiresAt: lease.expiresAt,
  };
}

/**
 * One work item at a time per commit and cluster: a conditional put that succeeds when no lease is held or
 * the held one has run out (its holder's invocation ended without releasing it). The item is kept
 * `keepSeconds` (at least as long as the records written under it live): that no item was there tells the
 * first holder that nothing of the commit is recorded on the cluster, which spares it two reads.
 */
export function dynamoClusterLeases(table: TableRef, keepSeconds: number): ClusterLeases {
  const key = (sha: string, cluster: string) => ({ pk: rolloutPk(sha), sk: clusterLeaseSk(cluster) });
  return {
    async acquire(sha, cluster, holder, untilMs) {
      const now = Date.now();
      const expiresAt = Math.max(
        epochSeconds(new Date(now)) + keepSeconds,
        epochSeconds(new Date(untilMs)) + 86_400,
      );
      try {
        const { Attributes } = await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: { ...key(sha, cluster), type: 'lease', holder, until: untilMs, expiresAt },
            ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': now },
            ReturnValues: 'ALL_OLD',
          }),
        );
        const released = Attributes !== undefined && Number(Attributes.until) === 0;
        return {
          held: true,
          first: Attributes === undefined,
          expiresAt,
          ...(released && typeof Attributes.holder === 'string' ? { previous: Attributes.holder } : {}),
        };
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

/**
 * A lease holder's last writes, then the lease's release (`release`, a `releasedLeaseItem`) in the same
 * request as the last of them: one request less than a release of its own. Every other request goes first,
 * so no put is sent after the release, except the last request's puts DynamoDB hands back unprocessed while
 * taking the release: once the lease is free another holder may write, so `late` writes each of those
 * the way a writer without the lease would (conditionally).
 */
export async function writeThenRelease(
  table: TableRef,
  puts: readonly NativeItem[],
  release: NativeItem,
  late: (handedBack: readonly NativeItem[]) => Promise<void>,
): Promise<void> {
  const asPut = (Item: NativeItem) => ({ PutRequest: { Item } });
  // Whole requests of 25 first; the last request holds what is left and the release.
  const headCount = BATCH_SIZE * Math.floor(puts.length / BATCH_SIZE);
  await batchWriteAll(table, puts.slice(0, headCount).map(asPut));
  const releaseTaken = (left: readonly { PutRequest?: { Item?: NativeItem } }[]) =>
    !left.some((r) => r.PutRequest?.Item?.sk === release.sk);
  const left = await batchWriteOne(table, [...puts.slice(headCount), release].map(asPut), {}, releaseTaken);
  await late(left.flatMap((r) => (r.PutRequest?.Item === undefined ? [] : [r.PutRequest.Item])));
}
