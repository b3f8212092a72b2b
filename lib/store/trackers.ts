import type { ClusterTrackers, TrackedRollout } from '../rollouts/rollout-store.js';
import { DeleteCommand, UpdateCommand } from './document-client.js';
import { isConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { TRACKER_CHAIN_SK, TRACKER_ROLLOUT_PREFIX, trackerPk } from './keys.js';

/**
 * One polling chain per cluster, whatever the number of rollouts in flight on it: fan-out registers a
 * rollout under the cluster (a counter that grows on every registration), then claims the chain's lease.
 * Track drops a registration only at the counter it saw, so a registration made while it polled survives.
 */
export function dynamoClusterTrackers(table: TableRef, ttlSeconds: number): ClusterTrackers {
  const chainKey = (cluster: string) => ({ pk: trackerPk(cluster), sk: TRACKER_CHAIN_SK });
  return {
    async register(cluster, sha, now) {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: trackerPk(cluster), sk: `${TRACKER_ROLLOUT_PREFIX}${sha}` },
          UpdateExpression: 'SET sha = :sha, addedAt = :now, expiresAt = :exp ADD adds :one',
          ExpressionAttributeValues: {
            ':sha': sha,
            ':now': now.toISOString(),
            ':exp': Math.floor(now.getTime() / 1000) + ttlSeconds,
            ':one': 1,
          },
        }),
      );
    },

    async list(cluster) {
      const items = await queryAll(table, trackerPk(cluster), TRACKER_ROLLOUT_PREFIX);
      return items.map(
        (item): TrackedRollout => ({
          sha: String(item.sha),
          adds: Number(item.adds ?? 0),
          addedAt: String(item.addedAt ?? ''),
        }),
      );
    },

    async unregister(cluster, rollout) {
      try {
        await table.doc.send(
          new DeleteCommand({
            TableName: table.tableName,
            Key: { pk: trackerPk(cluster), sk: `${TRACKER_ROLLOUT_PREFIX}${rollout.sha}` },
            ConditionExpression: 'adds = :adds',
            ExpressionAttributeValues: { ':adds': rollout.adds },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async claimChain(cluster, until, now) {
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: chainKey(cluster),
            UpdateExpression: 'SET leaseUntil = :until',
            ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now',
            ExpressionAttributeValues: { ':until': until, ':now': now.toISOString() },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async renewChain(cluster, until) {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression: 'SET leaseUntil = :until',
          ExpressionAttributeValues: { ':until': until },
        }),
      );
    },

    async releaseChain(cluster) {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: chainKey(cluster),
          UpdateExpression: 'REMOVE leaseUntil',
        }),
      );
    },
  };
}
