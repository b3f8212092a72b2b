import { mapWithConcurrency } from '../concurrency.js';
import { type AppRecord, type AppTarget, STATE_RANK } from '../rollouts/model.js';
import type { AppChange, NewAppRecords, RolloutMeta } from '../rollouts/rollout-store.js';
import { PutCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { appSk, historyPk, historySk, rolloutPk } from './keys.js';
import { boundChecks } from './secret-chunks.js';

/** The fields every app item of a rollout repeats: its history index entry and its expiry. */
export function appItemFields(meta: RolloutMeta, target: AppTarget, ttlSeconds: number) {
  return {
    pk: rolloutPk(meta.sha),
    sk: appSk(target),
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
    expiresAt: epochSeconds(new Date(meta.receivedAt)) + ttlSeconds,
  };
}

type Item = Record<string, unknown>;

const keyOf = (t: AppTarget) => `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

function withoutUndefined(record: object): Item {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== null));
}

/** Conditional puts in flight at once when records are written. */
const PUT_CONCURRENCY = 16;

/**
 * The items a claim and its later changes would have written, built in memory and put once each app is
 * done: one request per app instead of two or three. Only for apps with no item yet, by the holder of the
 * cluster's lease (see `NewAppRecords`); each put is conditional on the item not existing (a BatchWriteItem
 * cannot be), so a holder that outlived its lease never overwrites a later holder's record.
 */
export function newAppRecords(table: TableRef, meta: RolloutMeta, ttlSeconds: number): NewAppRecords {
  const items = new Map<string, Item>();
  const create = (record: AppRecord, extra: Item): Item => {
    const { cluster, namespace, name, kind, ...rest } = record;
    const item = {
      ...appItemFields(meta, { cluster, namespace, name, kind }, ttlSeconds),
      ...withoutUndefined(rest),
      ...extra,
      stateRank: STATE_RANK[record.state],
      updatedAt: new Date().toISOString(),
    };
    items.set(keyOf(record), item);
    return item;
  };
  return {
    get size() {
      return items.size;
    },
    async recordApp(_meta, record) {
      create(record, { version: 1 });
    },
    async claimApp(_meta, claim) {
      create(claim, { version: 1 });
      return 1;
    },
    async transition(_sha, target: AppTarget, change: AppChange, expectedVersion) {
      const item = items.get(keyOf(target));
      if (item === undefined || item.version !== expectedVersion) return 'conflict';
      for (const [field, value] of Object.entries(change)) {
        if (value === null) delete item[field];
        else if (value !== undefined) item[field] = value;
      }
      if (change.state !== undefined) item.stateRank = STATE_RANK[change.state];
      item.version = expectedVersion + 1;
      item.updatedAt = new Date().toISOString();
      return 'updated';
    },
    async flush(targets) {
      const keys = targets === undefined ? [...items.keys()] : targets.map(keyOf).filter((k) => items.has(k));
      const taken = keys.map((k) => items.get(k) as Item);
      for (const k of keys) items.delete(k);
      const settled = await mapWithConcurrency(taken, PUT_CONCURRENCY, (item) =>
        putNew(table, meta.sha, item),
      );
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      return settled.filter((s) => s.status === 'fulfilled' && s.value).length;
    },
  };
}

/**
 * One new app item, unless one exists (a later lease holder recorded it: its record stands). Checks too
 * many for one item: the app item gets their summary, the full list goes in chunk items first.
 */
async function putNew(table: TableRef, sha: string, item: Item): Promise<boolean> {
  let app = item;
  if (Array.isArray(item.secrets)) {
    const target = item as unknown as AppTarget;
    const { fields, chunks } = boundChecks(sha, target, item.secrets, {
      expiresAt: item.expiresAt as number,
    });
    for (const Item of chunks) await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
    app = withoutUndefined({ ...item, ...fields });
  }
  try {
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: app,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
