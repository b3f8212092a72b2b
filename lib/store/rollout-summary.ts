import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AppRecord, countStates, deriveRolloutStatus, isTerminal } from '../rollouts/model.js';
import type { AppStateWriter, ClusterErrors, TrackingClaims } from '../rollouts/rollout-store.js';
import { isConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { rolloutPk, SUMMARY_SK } from './keys.js';
import { summaryFromItem } from './rollout-items.js';

export async function getSummaryItem(table: TableRef, sha: string) {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/**
 * The rollout summary: its status derived from its apps (monotonic), the one-chain tracking claim, and the
 * clusters fan-out could not read.
 */
export function dynamoRolloutSummary(
  table: TableRef,
): Pick<AppStateWriter, 'syncSummary'> & TrackingClaims & ClusterErrors {
  return {
    async syncSummary(sha: string) {
      const before = await getSummaryItem(table, sha);
      if (before === undefined) return undefined;
      const apps = await queryAll(table, rolloutPk(sha), 'APP#');
      const clusterErrors = Object.keys((before.clusterErrors ?? {}) as Record<string, string>);
      const states = [
        ...apps.map((a) => a.state as AppRecord['state']),
        ...clusterErrors.map((): AppRecord['state'] => 'error'),
      ];
      // Versions only grow, so the sum orders views: a stale one never overwrites a newer one.
      const version =
        apps.reduce((sum, a) => sum + Number(a.version ?? 0), 0) + Number(before.errorsVersion ?? 0);
      const finished = apps.length > 0 && states.every(isTerminal);
      const finishedAt = finished
        ? apps
            .map((a) => String(a.finishedAt ?? a.updatedAt ?? ''))
            .sort()
            .at(-1)
        : undefined;
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
            UpdateExpression: `SET #status = :status, counts = :counts, appsVersion = :v${finishedAt ? ', finishedAt = :f' : ' REMOVE finishedAt'}`,
            // An equal sum is the same view; it may differ in status only for a rollout with no apps yet.
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(appsVersion) OR appsVersion < :v OR (appsVersion = :v AND #status <> :status))',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':status': deriveRolloutStatus(states),
              ':counts': countStates(states),
              ':v': version,
              ...(finishedAt ? { ':f': finishedAt } : {}),
            },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const after = await getSummaryItem(table, sha);
      return after === undefined
        ? undefined
        : { ...summaryFromItem(after), appsVersion: Number(after.appsVersion ?? 0) };
    },

    async claimTracking(sha: string, until: string, now: Date) {
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
            UpdateExpression: 'SET trackingUntil = :until',
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(trackingUntil) OR trackingUntil < :now)',
            ExpressionAttributeValues: { ':until': until, ':now': now.toISOString() },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async releaseTracking(sha: string, appsVersion: number) {
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
            UpdateExpression: 'REMOVE trackingUntil',
            ConditionExpression: 'appsVersion = :v',
            ExpressionAttributeValues: { ':v': appsVersion },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async recordClusterError(sha: string, cluster: string, message: string | undefined) {
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
            UpdateExpression:
              message === undefined
                ? 'REMOVE clusterErrors.#c SET errorsVersion = if_not_exists(errorsVersion, :zero) + :one'
                : 'SET clusterErrors.#c = :m, errorsVersion = if_not_exists(errorsVersion, :zero) + :one',
            ConditionExpression:
              message === undefined ? 'attribute_exists(clusterErrors.#c)' : 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#c': cluster },
            ExpressionAttributeValues: {
              ':zero': 0,
              ':one': 1,
              ...(message === undefined ? {} : { ':m': message }),
            },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
