import { type AppRecord, type AppTarget, STATE_RANK } from '../rollouts/model.js';
import type { AppChange, NewAppRecords, RolloutMeta } from '../rollouts/rollout-store.js';
import { batchWriteAll } from './batch-write.js';
import { epochSeconds, type TableRef } from './dynamo.js';
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

/**
 * The items a claim and its later changes would have written, built in memory and put in batches of 25 at
 * the end: one request per 25 apps instead of two per app. Only for apps with no item yet, by the holder
 * of the cluster's lease (see `NewAppRecords`).
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
    async flush() {
      // Checks too many for one item: the app item gets their summary, the full list goes in chunk items.
      const puts = [...items.values()].flatMap((Item) => {
        if (!Array.isArray(Item.secrets)) return [{ PutRequest: { Item } }];
        const target = Item as unknown as AppTarget;
        const { fields, chunks } = boundChecks(meta.sha, target, Item.secrets, {
          expiresAt: Item.expiresAt as number,
        });
        const app = withoutUndefined({ ...Item, ...fields });
        return [...chunks, app].map((item) => ({ PutRequest: { Item: item } }));
      });
      items.clear();
      await batchWriteAll(table, puts);
    },
  };
}
