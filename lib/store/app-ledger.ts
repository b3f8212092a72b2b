import type { AppRecord, AppTarget } from '../rollouts/app-model.js';
import type { AppChange } from '../rollouts/ports/app-state.js';
import type { AppLedger, RolloutMeta } from '../rollouts/ports/rollout-writer.js';
import { STATE_RANK } from '../rollouts/state-model.js';
import { PutCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { appSk, rolloutPk } from './keys.js';
import { appItemFields } from './new-app-records.js';
import { problemIndexFields, warnedIndexFields } from './problem-apps.js';
import { boundChecks } from './secret-chunks.js';

/**
 * An app's item in a rollout: recorded (never moving its state back), claimed for a round (on the version
 * read, or new) and moved on (on the version read). Every write is conditional; checks too long for the
 * item are put beside it first (`boundChecks`).
 */
export function dynamoAppLedger(table: TableRef, ttlSeconds: number): AppLedger {
  const appKeys = (meta: RolloutMeta, target: AppTarget) => ({
    pk: rolloutPk(meta.sha),
    sk: appSk(target),
  });

  const appIndexFields = (meta: RolloutMeta, target: AppTarget) => {
    const { pk: _pk, sk: _sk, ...fields } = appItemFields(meta, target, ttlSeconds);
    return fields;
  };

  /** An app's checks as its item may hold them; their full list, when too long, is put beside it first. */
  const bounded = async <T extends { secrets?: unknown }>(sha: string, target: AppTarget, fields: T) => {
    const checks = fields.secrets;
    if (!Array.isArray(checks)) return fields;
    const { fields: kept, chunks } = boundChecks(sha, target, checks, {
      expiresAt: epochSeconds(new Date()) + ttlSeconds,
    });
    for (const Item of chunks) await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
    return { ...fields, ...kept };
  };

  return {
    async recordApp(meta, record: AppRecord) {
      const { cluster, namespace, name, kind, ...rest } = record;
      const target: AppTarget = { cluster, namespace, name, kind };
      const item = {
        ...appIndexFields(meta, target),
        ...(await bounded(meta.sha, target, rest)),
        stateRank: STATE_RANK[record.state],
      };
      const { names, values, sets, removals } = setClause({
        ...withoutNulls(item),
        ...problemIndexFields(meta.sha, target, record.state),
        ...warnedIndexFields(meta.sha, target, record),
      });
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: appKeys(meta, target),
            UpdateExpression: `SET ${sets}, version = if_not_exists(version, :zero) + :one${removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''}`,
            ConditionExpression: 'attribute_not_exists(stateRank) OR stateRank < :rank OR #st = :state',
            ExpressionAttributeNames: { ...names, '#st': 'state' },
            ExpressionAttributeValues: {
              ...values,
              ':zero': 0,
              ':one': 1,
              ':rank': STATE_RANK[record.state],
              ':state': record.state,
            },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    async claimApp(meta, claim, expectedVersion) {
      const { cluster, namespace, name, kind, ...rest } = claim;
      const target: AppTarget = { cluster, namespace, name, kind };
      const next = (expectedVersion ?? 0) + 1;
      const item = {
        ...appIndexFields(meta, target),
        ...(await bounded(meta.sha, target, rest)),
        stateRank: STATE_RANK[claim.state],
        version: next,
        updatedAt: new Date().toISOString(),
        ...problemIndexFields(meta.sha, target, claim.state),
        ...warnedIndexFields(meta.sha, target, claim),
      };
      const { names, values, sets, removals } = setClause(item);
      // Fields of an earlier round that no longer apply once the app is claimed again.
      const stale = ['refreshedAt', 'finishedAt', 'syncStatus', 'health', 'revision', 'message'].filter(
        (field) => (rest as Record<string, unknown>)[field] === undefined,
      );
      stale.forEach((field, i) => {
        names[`#r${i}`] = field;
        removals.push(`#r${i}`);
      });
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: appKeys(meta, target),
            UpdateExpression: `SET ${sets}${removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''}`,
            ConditionExpression:
              expectedVersion === undefined ? 'attribute_not_exists(pk)' : 'version = :expected',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ...values,
              ...(expectedVersion === undefined ? {} : { ':expected': expectedVersion }),
            },
          }),
        );
        return next;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    async transition(sha: string, target: AppTarget, change: AppChange, expectedVersion: number) {
      const item: Record<string, unknown> = {
        ...(await bounded(sha, target, change)),
        updatedAt: new Date().toISOString(),
      };
      if (change.state !== undefined) {
        item.stateRank = STATE_RANK[change.state];
        Object.assign(item, problemIndexFields(sha, target, change.state));
      }
      // A verdict written again (a blocked app preflighted again) moves it in or out of the warned index.
      if (change.preflight !== undefined && change.preflight !== null && change.state !== undefined) {
        Object.assign(
          item,
          warnedIndexFields(sha, target, { ...target, state: change.state, preflight: change.preflight }),
        );
      }
      const { names, values, sets, removals } = setClause(item);
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(sha), sk: appSk(target) },
            UpdateExpression: `SET ${sets}, version = version + :one${removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''}`,
            ConditionExpression:
              change.state === undefined
                ? 'version = :expected'
                : 'version = :expected AND stateRank <= :rank',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ...values,
              ':one': 1,
              ':expected': expectedVersion,
              ...(change.state === undefined ? {} : { ':rank': STATE_RANK[change.state] }),
            },
          }),
        );
        return 'updated';
      } catch (error) {
        if (isConditionFailure(error)) return 'conflict';
        throw error;
      }
    },
  };
}

/** `SET` for values, `REMOVE` for nulls; `sets` is the SET list (the caller appends to it). */
function setClause(item: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts: string[] = [];
  const removals: string[] = [];
  let i = 0;
  for (const [key, value] of Object.entries(item)) {
    if (value === undefined) continue;
    names[`#a${i}`] = key;
    if (value === null) removals.push(`#a${i}`);
    else {
      values[`:a${i}`] = value;
      parts.push(`#a${i} = :a${i}`);
    }
    i++;
  }
  return { names, values, sets: parts.join(', '), removals };
}

const withoutNulls = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null));
