import type { ReleaseRecords } from '../rollouts/ports/release-records.js';
import type { StoredPushEvent } from '../rollouts/ports/rollout-writer.js';
import { UpdateCommand } from './document-client.js';
import { ignoreConditionFailure, type TableRef } from './dynamo.js';
import { rolloutPk, SUMMARY_SK } from './keys.js';
import { getSummaryItem } from './rollout-summary.js';
import { bypassingCopy } from './summary-latest.js';
import { syncedFromItem } from './summary-views.js';

/** Release control's reads and the deadline move, all on the rollout's summary item. */
export function dynamoReleaseRecords(table: TableRef): ReleaseRecords {
  return {
    async viewSummary(sha) {
      const item = await getSummaryItem(table, sha);
      return item === undefined ? undefined : syncedFromItem(item);
    },
    async pushEvent(sha) {
      const item = await getSummaryItem(table, sha);
      const event = item?.pushEvent;
      return event !== null && typeof event === 'object' ? (event as StoredPushEvent) : undefined;
    },
    async extendDeadline(sha, deadline) {
      await bypassingCopy(table, sha, () =>
        table.doc
          .send(
            new UpdateCommand({
              TableName: table.tableName,
              Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
              UpdateExpression: 'SET deadline = :deadline',
              ConditionExpression:
                'attribute_exists(pk) AND (attribute_not_exists(deadline) OR deadline < :deadline)',
              ExpressionAttributeValues: { ':deadline': deadline },
            }),
          )
          .catch(ignoreConditionFailure),
      );
    },
    async addUngated(sha, instances) {
      if (instances.length === 0) return;
      const key = { pk: rolloutPk(sha), sk: SUMMARY_SK };
      await bypassingCopy(table, sha, () =>
        table.doc
          .send(
            new UpdateCommand({
              TableName: table.tableName,
              Key: key,
              UpdateExpression: 'SET #u = if_not_exists(#u, :empty)',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: { '#u': 'ungatedBy' },
              ExpressionAttributeValues: { ':empty': {} },
            }),
          )
          .catch(ignoreConditionFailure),
      );
      const names: Record<string, string> = { '#u': 'ungatedBy' };
      const values: Record<string, unknown> = {};
      const sets = instances.map((instance, i) => {
        names[`#k${i}`] = `${instance.cluster}/${instance.namespace}`;
        values[`:v${i}`] = instance;
        return `#u.#k${i} = :v${i}`;
      });
      await bypassingCopy(table, sha, () =>
        table.doc
          .send(
            new UpdateCommand({
              TableName: table.tableName,
              Key: key,
              UpdateExpression: `SET ${sets.join(', ')}`,
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            }),
          )
          .catch(ignoreConditionFailure),
      );
    },
  };
}
