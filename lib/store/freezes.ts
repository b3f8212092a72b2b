import type { FreezeStore } from '../release/ports.js';
import type { Freeze } from '../rollouts/rollout-model.js';
import { DeleteCommand, type NativeItem, PutCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { FREEZE_SK_PREFIX, FREEZES_PK, freezeSk } from './keys.js';

/** An ended freeze stays readable this long (its record, for whoever asks why a rollout was held). */
const ENDED_TTL_SECONDS = 30 * 24 * 3600;

const FIELDS = ['id', 'repo', 'cluster', 'reason', 'until', 'by', 'at'] as const;

/**
 * Freezes, all in one partition (`FREEZES` / `FREEZE#<id>`): a handful at a time, read whole by every work
 * item. One with an `until` expires (DynamoDB TTL) a while after it ends; `list` leaves ended ones out.
 */
export function dynamoFreezeStore(table: TableRef): FreezeStore {
  return {
    async create(freeze) {
      const until = freeze.until === undefined ? undefined : Date.parse(freeze.until);
      await table.doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: {
            pk: FREEZES_PK,
            sk: freezeSk(freeze.id),
            ...freeze,
            ...(until === undefined || Number.isNaN(until)
              ? {}
              : { expiresAt: epochSeconds(new Date(until)) + ENDED_TTL_SECONDS }),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },

    async list(now) {
      const items = await queryAll(table, FREEZES_PK, FREEZE_SK_PREFIX);
      return items
        .map(freezeFromItem)
        .filter((f) => f.until === undefined || Date.parse(f.until) > now.getTime());
    },

    async remove(id) {
      try {
        await table.doc.send(
          new DeleteCommand({
            TableName: table.tableName,
            Key: { pk: FREEZES_PK, sk: freezeSk(id) },
            ConditionExpression: 'attribute_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
}

function freezeFromItem(item: NativeItem): Freeze {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) out[field] = item[field];
  return out as unknown as Freeze;
}
