import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AppRecord, countStates, deriveRolloutStatus, isTerminal } from '../rollouts/model.js';
import type { AppStateWriter } from '../rollouts/rollout-store.js';
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
 * A cluster whose work item has not finished counts as an unfinished app, one that failed as an error, so
 * the rollout never looks done while a cluster is still being retried.
 */
function clusterStates(summary: Record<string, unknown>): AppRecord['state'][] {
  const progress = (summary.clusters ?? {}) as Record<string, string>;
  const errors = Object.keys((summary.clusterErrors ?? {}) as Record<string, string>);
  const states: AppRecord['state'][] = [];
  for (const value of Object.values(progress)) {
    if (value === 'planned' || value === 'retrying') states.push('matched');
    else if (value === 'failed') states.push('error');
  }
  // Items written before per-cluster progress existed: every recorded error counts.
  if (Object.keys(progress).length === 0) for (const _ of errors) states.push('error');
  return states;
}

/** The rollout summary: its status derived from its apps and clusters (monotonic). */
export function dynamoRolloutSummary(table: TableRef): Pick<AppStateWriter, 'syncSummary'> {
  return {
    async syncSummary(sha: string) {
      const before = await getSummaryItem(table, sha);
      if (before === undefined) return undefined;
      const apps = await queryAll(table, rolloutPk(sha), 'APP#');
      const states = [...apps.map((a) => a.state as AppRecord['state']), ...clusterStates(before)];
      // Versions only grow, so the sum orders views: a stale one never overwrites a newer one.
      const version =
        apps.reduce((sum, a) => sum + Number(a.version ?? 0), 0) + Number(before.errorsVersion ?? 0);
      const finished = states.length > 0 && states.every(isTerminal);
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
  };
}
