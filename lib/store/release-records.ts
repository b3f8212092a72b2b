import type { ReleaseRecords } from '../rollouts/ports/release-records.js';
import type { StoredPushEvent } from '../rollouts/ports/rollout-writer.js';
import { ignoreConditionFailure, type TableRef } from './dynamo.js';
import { getSummaryItem } from './rollout-summary.js';
import { updateSummary } from './summary-latest.js';
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
      await updateSummary(table, sha, {
        UpdateExpression: 'SET deadline = :deadline',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(deadline) OR deadline < :deadline)',
        ExpressionAttributeValues: { ':deadline': deadline },
      }).catch(ignoreConditionFailure);
    },
    async addUngated(sha, instances) {
      if (instances.length === 0) return;
      await updateSummary(table, sha, {
        UpdateExpression: 'SET #u = if_not_exists(#u, :empty)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#u': 'ungatedBy' },
        ExpressionAttributeValues: { ':empty': {} },
      }).catch(ignoreConditionFailure);
      const names: Record<string, string> = { '#u': 'ungatedBy' };
      const values: Record<string, unknown> = {};
      const sets = instances.map((instance, i) => {
        names[`#k${i}`] = `${instance.cluster}/${instance.namespace}`;
        values[`:v${i}`] = instance;
        return `#u.#k${i} = :v${i}`;
      });
      await updateSummary(table, sha, {
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }).catch(ignoreConditionFailure);
    },
  };
}
