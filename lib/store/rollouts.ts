import { type AppRecord, type AppTarget, STATE_RANK } from '../rollouts/model.js';
import type {
  AppChange,
  AppStateWriter,
  ClusterProgressWriter,
  DecisionTally,
  NewAppRecords,
  NewRollout,
  RolloutMeta,
  RolloutWriter,
} from '../rollouts/rollout-store.js';
import { decisionItems } from './decision-chunks.js';
import { PutCommand, UpdateCommand } from './document-client.js';
import {
  epochSeconds,
  ignoreConditionFailure,
  isConditionFailure,
  queryAll,
  type TableRef,
} from './dynamo.js';
import { appSk, rolloutPk, SUMMARY_SK, summaryIndexFields } from './keys.js';

import { appItemFields, newAppRecords } from './new-app-records.js';
import { problemIndexFields, warnedIndexFields } from './problem-apps.js';
import { latestDecisions } from './rollout-items.js';
import { dynamoRolloutSummary } from './rollout-summary.js';
import { boundChecks } from './secret-chunks.js';
import { addRef, recordClusterProgress } from './summary-caps.js';

/** Rollout records on the single table: conditional writes only, no transactions (dynalite has none). */
export type DynamoRolloutWriter = RolloutWriter &
  AppStateWriter &
  ClusterProgressWriter & { newApps(meta: RolloutMeta, lease?: { untilMs: number }): NewAppRecords };

export function dynamoRolloutWriter(table: TableRef, ttlSeconds: number): DynamoRolloutWriter {
  const summary = dynamoRolloutSummary(table);
  const expiresAt = (iso: string) => epochSeconds(new Date(iso)) + ttlSeconds;

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

  /** The cluster's decision counts in the summary (a summary written before the map existed gets it first). */
  const writeDecisionCounts = async (sha: string, { cluster, counts }: DecisionTally) => {
    const update = (expression: string, values: Record<string, unknown>) =>
      table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
          UpdateExpression: expression,
          ExpressionAttributeNames: {
            '#d': 'decisionsByCluster',
            ...(expression.includes('#c') ? { '#c': cluster } : {}),
          },
          ExpressionAttributeValues: values,
        }),
      );
    // A summary written before `decisionsByCluster` existed gets the map first.
    await update('SET #d.#c = :counts', { ':counts': counts }).catch(async (error: unknown) => {
      if (!(error instanceof Error && error.name === 'ValidationException')) throw error;
      await update('SET #d = if_not_exists(#d, :counts)', { ':counts': { [cluster]: counts } });
      await update('SET #d.#c = :counts', { ':counts': counts });
    });
  };

  return {
    ...summary,
    newApps: (meta, lease) => newAppRecords(table, meta, ttlSeconds, lease),
    async start(rollout: NewRollout) {
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              pk: rolloutPk(rollout.sha),
              sk: SUMMARY_SK,
              type: 'rollout',
              ...rollout,
              ...summaryIndexFields(rollout),
              refs: [rollout.ref],
              status: 'pending',
              counts: {},
              decisions: {},
              clusterErrors: {},
              clusters: {},
              views: {},
              decisionsByCluster: {},
              appsVersion: 0,
              expiresAt: expiresAt(rollout.receivedAt),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return 'created';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      // Another push of this commit (a tag, a redelivery, a rollback to it): add its ref, move the deadline on.
      await table.doc
        .send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(rollout.sha), sk: SUMMARY_SK },
            UpdateExpression:
              'SET #refs = if_not_exists(#refs, :none), #clusters = if_not_exists(#clusters, :empty), deadline = :deadline',
            ConditionExpression: 'attribute_not_exists(deadline) OR deadline < :deadline',
            ExpressionAttributeNames: { '#refs': 'refs', '#clusters': 'clusters' },
            ExpressionAttributeValues: { ':none': [], ':empty': {}, ':deadline': rollout.deadline ?? '' },
          }),
        )
        .catch(ignoreConditionFailure);
      await addRef(table, rollout.sha, rollout.ref);
      return 'exists';
    },

    async recordDecisions(sha, batch, decisions, options = {}) {
      const { pending, withProgress } = options;
      const items = decisionItems(sha, batch, decisions, Math.floor(Date.now() / 1000) + ttlSeconds);
      // With new app records still to write, the decisions go in their last batch: one request less.
      if (pending !== undefined) await pending.flush(undefined, items);
      else
        for (const Item of items) await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
      // Counted per cluster (its own batches only, not every cluster's); readers add the clusters up.
      const cluster = batch.slice(0, batch.indexOf('#'));
      const counts: Record<string, number> = {};
      for (const d of latestDecisions(await queryAll(table, rolloutPk(sha), `DECISIONS#${cluster}#`))) {
        counts[d.decision] = (counts[d.decision] ?? 0) + 1;
      }
      if (withProgress === true) return { cluster, counts };
      await writeDecisionCounts(sha, { cluster, counts });
      return undefined;
    },

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

    async planClusters(sha, clusters) {
      if (clusters.length === 0) return;
      const names: Record<string, string> = {};
      const parts: string[] = [];
      clusters.forEach((cluster, i) => {
        names[`#c${i}`] = cluster;
        parts.push(`#clusters.#c${i} = :planned`);
      });
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
          UpdateExpression: `SET ${parts.join(', ')}, errorsVersion = if_not_exists(errorsVersion, :zero) + :one`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { ...names, '#clusters': 'clusters' },
          ExpressionAttributeValues: { ':planned': 'planned', ':zero': 0, ':one': 1 },
        }),
      );
    },

    async recordCluster(sha, cluster, progress, message, decided) {
      if (decided === undefined) {
        await recordClusterProgress(table, sha, cluster, progress, message);
        return;
      }
      const written = await recordClusterProgress(table, sha, cluster, progress, message, decided.counts);
      if (written) return;
      // A summary without the decisions map: the progress alone, then the counts the way that makes the map.
      await recordClusterProgress(table, sha, cluster, progress, message);
      await writeDecisionCounts(sha, decided);
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
