import { mapWithConcurrency } from '../concurrency.js';
import type { AppRecord, AppTarget } from '../rollouts/app-model.js';
import type { AppChange, ViewedApp } from '../rollouts/ports/app-state.js';
import type { NewAppRecords, RolloutMeta } from '../rollouts/ports/rollout-writer.js';
import { type AppState, STATE_RANK } from '../rollouts/state-model.js';
import { batchWriteAll } from './batch-write.js';
import { writeThenRelease } from './cluster-leases.js';
import { PutCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { appSk, historyPk, historySk, rolloutPk } from './keys.js';
import { withProblemIndex } from './problem-apps.js';
import { boundChecks } from './secret-chunks.js';

/** The fields every app item of a rollout repeats: its history index keys (gsi4) and its expiry. */
export function appItemFields(meta: RolloutMeta, target: AppTarget, ttlSeconds: number) {
  return { ...rolloutItemFields(meta, ttlSeconds), ...targetItemFields(target) };
}

/** What the app items of one rollout share (computed once per work item, not once per app). */
function rolloutItemFields(meta: RolloutMeta, ttlSeconds: number) {
  return {
    pk: rolloutPk(meta.sha),
    type: 'app',
    gsi4sk: historySk(meta.receivedAt, meta.sha),
    sha: meta.sha,
    repo: meta.repo,
    ref: meta.ref,
    trigger: meta.trigger,
    receivedAt: meta.receivedAt,
    expiresAt: epochSeconds(new Date(meta.receivedAt)) + ttlSeconds,
  };
}

function targetItemFields(target: AppTarget) {
  return {
    sk: appSk(target),
    gsi4pk: historyPk(target),
    cluster: target.cluster,
    namespace: target.namespace,
    name: target.name,
    kind: target.kind,
  };
}

type Item = Record<string, unknown>;

const keyOf = (t: AppTarget) => `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

function withoutUndefined(record: object): Item {
  const item: Item = {};
  for (const [key, value] of Object.entries(record))
    if (value !== undefined && value !== null) item[key] = value;
  return item;
}

/** Conditional puts in flight at once when records are written. */
const PUT_CONCURRENCY = 16;
/** Till this long before its lease ends the holder writes in unconditional batches: no one else can. */
const LEASE_SAFETY_MS = 3_000;

/**
 * The items a claim and its later changes would have written, built in memory and put in batches of 25
 * once their apps are done. Only for apps with no item yet, by the holder of the cluster's lease (see
 * `NewAppRecords`): while the lease surely holds (`lease.untilMs`), no one else creates these items and a
 * BatchWriteItem is safe; later (or with no lease end known), each is a put conditional on the item not
 * existing, so a holder that outlived its lease never overwrites a later holder's record.
 */
export function newAppRecords(
  table: TableRef,
  meta: RolloutMeta,
  ttlSeconds: number,
  lease?: { readonly untilMs: number },
): NewAppRecords {
  const items = new Map<string, Item>();
  const shared = rolloutItemFields(meta, ttlSeconds);
  // The written items as the cluster's view sees them; undefined once a put found an item there.
  let viewed: ViewedApp[] | undefined = [];
  const written = (item: Item) => {
    viewed?.push({
      state: item.state as AppState,
      version: item.version as number,
      ...(typeof item.wave === 'string' ? { wave: item.wave } : {}),
      ...(typeof item.destination === 'string' ? { destination: item.destination } : {}),
      ...(typeof item.finishedAt === 'string' ? { finishedAt: item.finishedAt } : {}),
      updatedAt: item.updatedAt as string,
    });
  };
  const create = (record: AppRecord, extra: Item): Item => {
    const { cluster, namespace, name, kind, ...rest } = record;
    const item = {
      ...shared,
      ...targetItemFields({ cluster, namespace, name, kind }),
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
    viewed: () => viewed,
    async flush(targets, alongside = [], release = undefined) {
      const keys = targets === undefined ? [...items.keys()] : targets.map(keyOf).filter((k) => items.has(k));
      const taken = keys.map((k) => withProblemIndex(items.get(k) as Item));
      for (const k of keys) items.delete(k);
      if (lease !== undefined && Date.now() < lease.untilMs - LEASE_SAFETY_MS) {
        const puts = [...taken.flatMap((item) => bounded(meta.sha, item)), ...alongside];
        if (release === undefined) {
          await batchWriteAll(
            table,
            puts.map((Item) => ({ PutRequest: { Item } })),
          );
          for (const item of taken) written(item);
          return taken.length;
        }
        // The lease's release in the last request; what DynamoDB hands back beside it is put as past the
        // lease: an app item only if none is there (another holder may have recorded it since).
        const lost = new Set<unknown>();
        await writeThenRelease(table, puts, release.item, async (late) => {
          for (const Item of late.filter((item) => item.type !== 'app'))
            await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
          const apps = late.filter((item) => item.type === 'app');
          const kept = await eachIfAbsent(apps, (item) => putIfAbsent(table, item));
          kept.forEach((ok, i) => {
            if (!ok) lost.add(keyOf(apps[i] as unknown as AppTarget));
          });
        });
        release.released();
        for (const item of taken) {
          if (lost.has(keyOf(item as unknown as AppTarget))) viewed = undefined;
          else written(item);
        }
        return taken.length - lost.size;
      }
      const kept = await eachIfAbsent(taken, (item) => putNew(table, meta.sha, item));
      kept.forEach((ok, i) => {
        if (ok) written(taken[i] as Item);
        else viewed = undefined;
      });
      for (const Item of alongside)
        await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
      return kept.filter(Boolean).length;
    },
  };
}

/** `put` of each item, a few at once; whether each was written (false: an item was there). */
async function eachIfAbsent(
  items: readonly Item[],
  put: (item: Item) => Promise<boolean>,
): Promise<boolean[]> {
  const settled = await mapWithConcurrency(items, PUT_CONCURRENCY, put);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => s.status === 'fulfilled' && s.value);
}

/**
 * One new app item, unless one exists (a later lease holder recorded it: its record stands). Checks too
 * many for one item: the app item gets their summary, the full list goes in chunk items first.
 */
async function putNew(table: TableRef, sha: string, item: Item): Promise<boolean> {
  const written = bounded(sha, item);
  const app = written.pop() as Item;
  for (const Item of written) await table.doc.send(new PutCommand({ TableName: table.tableName, Item }));
  return putIfAbsent(table, app);
}

/** The app item unless one is there; false when one was. */
async function putIfAbsent(table: TableRef, item: Item): Promise<boolean> {
  try {
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The items to write for one app: its checks' chunk items (when too many for it), then the app item. */
function bounded(sha: string, item: Item): Item[] {
  if (!Array.isArray(item.secrets)) return [item];
  const target = item as unknown as AppTarget;
  const { fields, chunks } = boundChecks(sha, target, item.secrets, { expiresAt: item.expiresAt as number });
  return [...chunks, withoutUndefined({ ...item, ...fields })];
}
