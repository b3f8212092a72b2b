import type {
  AppMemory,
  AppObservation,
  BehindMarker,
  ClusterMemory,
  ReconcileMemory,
  RolloutExistence,
} from '../reconcile/ports.js';
import { type BatchWriteOptions, batchWriteAll } from './batch-write.js';
import { DeleteCommand, GetCommand, PutCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { RECONCILE_PK, rolloutPk, SUMMARY_SK } from './keys.js';

export interface ReconcileMemoryOptions {
  /** How long an enqueued missed-webhook push is remembered (default 7 days). */
  readonly missedWebhookTtlSeconds?: number;
  /** A cluster's memory is split into items of at most about this many bytes (default 350 KB). */
  readonly maxItemBytes?: number;
  readonly batch?: BatchWriteOptions;
}

type Item = Record<string, unknown>;

const APPS_PREFIX = 'APPS#';
const MISSED_PREFIX = 'MISSED#';

/**
 * Reconcile memory on the single table (pk `RECONCILE`): per cluster a few `APPS#<cluster>#<n>` items
 * holding every app's observations and behind markers as compact JSON (revisions listed once per item), and
 * one `MISSED#<repo-key>:<ref>:<sha>` item (TTL) per enqueued missed-webhook push.
 */
export function dynamoReconcileMemory(
  table: TableRef,
  options: ReconcileMemoryOptions = {},
): ReconcileMemory {
  const ttl = options.missedWebhookTtlSeconds ?? 7 * 24 * 3600;
  const maxBytes = options.maxItemBytes ?? 350_000;
  return {
    async loadCluster(cluster) {
      // By key prefix: a pass holds one cluster's memory at a time, never the fleet's.
      const items = await queryAll(table, RECONCILE_PK, `${APPS_PREFIX}${cluster}#`);
      return decodeCluster(items.filter((item) => item.cluster === cluster));
    },

    async saveCluster(cluster, apps, previous) {
      const chunks = encodeChunks(apps, maxBytes);
      const updatedAt = new Date().toISOString();
      const puts = chunks.map((data, chunk) => ({
        PutRequest: {
          Item: {
            pk: RECONCILE_PK,
            sk: appsSk(cluster, chunk),
            type: 'reconcile-apps',
            cluster,
            chunk,
            chunks: chunks.length,
            data,
            updatedAt,
          },
        },
      }));
      const stale = Array.from({ length: Math.max(0, (previous?.chunks ?? 0) - chunks.length) }, (_, i) => ({
        DeleteRequest: { Key: { pk: RECONCILE_PK, sk: appsSk(cluster, chunks.length + i) } },
      }));
      await batchWriteAll(table, [...puts, ...stale], options.batch);
    },

    async claimMissedWebhook(key, now) {
      try {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              pk: RECONCILE_PK,
              sk: `${MISSED_PREFIX}${key}`,
              type: 'missed-webhook',
              enqueuedAt: now.toISOString(),
              expiresAt: epochSeconds(now) + ttl,
            },
            // dynalite never expires items and DynamoDB deletes them lazily: an expired claim is gone.
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': epochSeconds(now) },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async releaseMissedWebhook(key) {
      await table.doc.send(
        new DeleteCommand({
          TableName: table.tableName,
          Key: { pk: RECONCILE_PK, sk: `${MISSED_PREFIX}${key}` },
        }),
      );
    },
  };
}

/** A rollout exists for a commit when its summary item does (one small consistent read). */
export function dynamoRolloutExistence(table: TableRef): RolloutExistence {
  return {
    async exists(sha) {
      const { Item } = await table.doc.send(
        new GetCommand({
          TableName: table.tableName,
          Key: { pk: rolloutPk(sha.toLowerCase()), sk: SUMMARY_SK },
          ProjectionExpression: 'pk',
          ConsistentRead: true,
        }),
      );
      return Item !== undefined;
    },
  };
}

function appsSk(cluster: string, chunk: number): string {
  return `${APPS_PREFIX}${cluster}#${String(chunk).padStart(4, '0')}`;
}

/** Stored form: `[key, [[at, status, rev]…], [[source, rev, since]…]]`, `rev` an index into `revs` (-1: none). */
type StoredApp = [string, [number, string, number][], [number, number, number][]];

function encodeChunks(apps: ReadonlyMap<string, AppMemory>, maxBytes: number): string[] {
  const chunks: string[] = [];
  let revs: string[] = [];
  let index = new Map<string, number>();
  let entries: StoredApp[] = [];
  let bytes = 0;
  const rev = (value: string | undefined): number => {
    if (value === undefined) return -1;
    let i = index.get(value);
    if (i === undefined) {
      i = revs.length;
      revs.push(value);
      index.set(value, i);
    }
    return i;
  };
  const flush = () => {
    chunks.push(JSON.stringify({ revs, apps: entries }));
    revs = [];
    index = new Map();
    entries = [];
    bytes = 0;
  };
  for (const [key, memory] of [...apps].sort(([a], [b]) => a.localeCompare(b))) {
    const shas = [...memory.observations.map((o) => o.revision), ...memory.behind.map((m) => m.sha)];
    const fresh = new Set(shas.filter((sha) => sha !== undefined && !index.has(sha)));
    const size =
      key.length +
      40 * (memory.observations.length + memory.behind.length) +
      16 +
      [...fresh].reduce((sum, sha) => sum + (sha?.length ?? 0) + 4, 0);
    if (entries.length > 0 && bytes + size > maxBytes) flush();
    entries.push([
      key,
      memory.observations.map((o) => [o.at, o.syncStatus, rev(o.revision)]),
      memory.behind.map((m) => [m.source, rev(m.sha), m.since]),
    ]);
    bytes += size;
  }
  flush();
  return chunks;
}

function decodeCluster(chunks: readonly Item[]): ClusterMemory | undefined {
  if (chunks.length === 0) return undefined;
  const total = Number(chunks.find((c) => c.chunk === 0)?.chunks ?? 0);
  const apps = new Map<string, AppMemory>();
  // Items past the first chunk's count are left over from a larger memory: ignored.
  for (const chunk of chunks.filter((c) => typeof c.chunk === 'number' && c.chunk < total)) {
    for (const [key, memory] of decodeChunk(chunk.data)) apps.set(key, memory);
  }
  return { apps, chunks: Math.max(total, chunks.length) };
}

/** Never throws: an item that does not decode is memory lost, not a failed pass. */
function decodeChunk(data: unknown): [string, AppMemory][] {
  if (typeof data !== 'string') return [];
  let parsed: { revs?: unknown; apps?: unknown };
  try {
    parsed = JSON.parse(data) as { revs?: unknown; apps?: unknown };
  } catch {
    return [];
  }
  const revs = Array.isArray(parsed.revs) ? parsed.revs : [];
  const rev = (i: unknown): string | undefined => {
    const value = typeof i === 'number' ? revs[i] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  if (!Array.isArray(parsed.apps)) return [];
  return parsed.apps.flatMap((entry: unknown): [string, AppMemory][] => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') return [];
    const observations = (Array.isArray(entry[1]) ? entry[1] : []).flatMap((o: unknown): AppObservation[] => {
      if (!Array.isArray(o) || typeof o[0] !== 'number' || typeof o[1] !== 'string') return [];
      const revision = rev(o[2]);
      return [{ at: o[0], syncStatus: o[1], ...(revision === undefined ? {} : { revision }) }];
    });
    const behind = (Array.isArray(entry[2]) ? entry[2] : []).flatMap((m: unknown): BehindMarker[] => {
      const sha = Array.isArray(m) ? rev(m[1]) : undefined;
      if (!Array.isArray(m) || typeof m[0] !== 'number' || sha === undefined || typeof m[2] !== 'number')
        return [];
      return [{ source: m[0], sha, since: m[2] }];
    });
    return [[entry[0], { observations, behind }]];
  });
}
