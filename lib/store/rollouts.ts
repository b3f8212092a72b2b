import { BatchWriteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapSettled } from '../rollouts/concurrency.js';
import {
  type AppRecord,
  type AppTarget,
  countStates,
  type DecisionRecord,
  deriveRolloutStatus,
  isTerminal,
  STATE_RANK,
} from '../rollouts/model.js';
import type {
  AppChange,
  AppStateWriter,
  ClusterErrors,
  NewRollout,
  RolloutMeta,
  RolloutWriter,
  TrackingClaims,
} from '../rollouts/rollout-store.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { appSk, decisionsSk, historyPk, historySk, rolloutPk, SUMMARY_SK } from './keys.js';
import { queryAll, summaryFromItem } from './rollout-items.js';

const DECISIONS_PER_ITEM = 2000;

/** Rollout records on the single table: conditional writes only, no transactions (dynalite has none). */
export type DynamoRolloutWriter = RolloutWriter & AppStateWriter & TrackingClaims & ClusterErrors;

async function getSummaryItem(table: TableRef, sha: string) {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
      ConsistentRead: true,
    }),
  );
  return Item;
}

export function dynamoRolloutWriter(table: TableRef, ttlSeconds: number): DynamoRolloutWriter {
  const expiresAt = (iso: string) => epochSeconds(new Date(iso)) + ttlSeconds;

  const appKeys = (meta: RolloutMeta, target: AppTarget) => ({
    pk: rolloutPk(meta.sha),
    sk: appSk(target),
  });

  const appIndexFields = (meta: RolloutMeta, target: AppTarget) => ({
    type: 'app',
    gsi1pk: historyPk(target),
    gsi1sk: historySk(meta.receivedAt, meta.sha),
    sha: meta.sha,
    repo: meta.repo,
    ref: meta.ref,
    trigger: meta.trigger,
    receivedAt: meta.receivedAt,
    cluster: target.cluster,
    namespace: target.namespace,
    name: target.name,
    kind: target.kind,
    expiresAt: expiresAt(meta.receivedAt),
  });

  return {
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
              refs: [rollout.ref],
              status: 'pending',
              counts: {},
              decisions: {},
              clusterErrors: {},
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
      await table.doc
        .send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: rolloutPk(rollout.sha), sk: SUMMARY_SK },
            UpdateExpression: 'SET #refs = list_append(#refs, :ref)',
            ConditionExpression: 'NOT contains(#refs, :refValue)',
            ExpressionAttributeNames: { '#refs': 'refs' },
            ExpressionAttributeValues: { ':ref': [rollout.ref], ':refValue': rollout.ref },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
      return 'exists';
    },

    async recordDecisions(sha: string, decisions: readonly DecisionRecord[]) {
      const existing = await queryAll(table, rolloutPk(sha), 'DECISIONS#');
      let chunk = existing.length;
      for (let i = 0; i < decisions.length; i += DECISIONS_PER_ITEM) {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              pk: rolloutPk(sha),
              sk: decisionsSk(chunk++),
              type: 'decisions',
              decisions: decisions.slice(i, i + DECISIONS_PER_ITEM),
              expiresAt: Math.floor(Date.now() / 1000) + ttlSeconds,
            },
          }),
        );
      }
      const counts: Record<string, number> = {};
      for (const d of decisions) counts[d.decision] = (counts[d.decision] ?? 0) + 1;
      const names: Record<string, string> = { '#decisions': 'decisions' };
      const values: Record<string, number> = { ':zero': 0 };
      const sets = Object.entries(counts).map(([decision, count], i) => {
        names[`#d${i}`] = decision;
        values[`:c${i}`] = count;
        return `#decisions.#d${i} = if_not_exists(#decisions.#d${i}, :zero) + :c${i}`;
      });
      if (sets.length === 0) return;
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: rolloutPk(sha), sk: SUMMARY_SK },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    },

    async putApps(meta, records) {
      const items = records.map(({ version, ...record }) => {
        const { cluster, namespace, name, kind } = record;
        return {
          pk: rolloutPk(meta.sha),
          sk: appSk({ cluster, namespace, name, kind }),
          ...appIndexFields(meta, { cluster, namespace, name, kind }),
          ...record,
          stateRank: STATE_RANK[record.state],
          version,
          updatedAt: new Date().toISOString(),
        };
      });
      const batches: (typeof items)[] = [];
      for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
      await mapSettled(batches, 8, (batch) => writeBatch(table, batch)).then((settled) => {
        const failed = settled.find((r) => !r.ok);
        if (failed !== undefined && !failed.ok) throw failed.error;
      });
    },

    async recordApp(meta, record: AppRecord) {
      const { cluster, namespace, name, kind, ...rest } = record;
      const target: AppTarget = { cluster, namespace, name, kind };
      const item = { ...appIndexFields(meta, target), ...rest, stateRank: STATE_RANK[record.state] };
      const { names, values, sets } = setClause(item);
      try {
        await table.doc.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: appKeys(meta, target),
            UpdateExpression: `SET ${sets}, version = if_not_exists(version, :zero) + :one`,
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

    async transition(sha: string, target: AppTarget, change: AppChange, expectedVersion: number) {
      const item: Record<string, unknown> = { ...change, updatedAt: new Date().toISOString() };
      if (change.state !== undefined) item.stateRank = STATE_RANK[change.state];
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

/** `SET` for values, `REMOVE` for nulls; `sets` is the SET list (the caller appends to it). */
/** One BatchWriteItem of up to 25 puts, retrying what DynamoDB leaves unprocessed (with backoff). */
async function writeBatch(table: TableRef, items: readonly Record<string, unknown>[]): Promise<void> {
  let requests = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; requests.length > 0; attempt++) {
    if (attempt > 0)
      await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempt * Math.random())));
    if (attempt > 8)
      throw new Error(`${requests.length} records stayed unprocessed after ${attempt} attempts`);
    const result = await table.doc.send(
      new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }),
    );
    requests = (result.UnprocessedItems?.[table.tableName] ?? []) as typeof requests;
  }
}

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
