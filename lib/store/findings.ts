import type { FindingFilter, FindingsReader } from '../api/findings-reader.js';
import { findingKey } from '../audit/lifecycle.js';
import { type Evidence, type Finding, SEVERITIES, type Severity } from '../audit/types.js';
import { BadRequestError } from '../errors.js';
import { type Clock, systemClock } from '../ports.js';
import type { FindingsStore } from '../reconcile/ports.js';
import { type BatchWriteOptions, batchWriteAll } from './batch-write.js';
import { QueryCommand, type QueryCommandInput } from './document-client.js';
import { decodeCursor, encodeCursor, epochSeconds, type TableRef, withCallerCursor } from './dynamo.js';
import { FINDINGS_PK } from './keys.js';
import { readLastPass } from './reconcile-pass.js';

export interface FindingsStoreOptions {
  readonly clock?: Clock;
  /** A resolved finding is kept this long, then expires (TTL `expiresAt`); default 30. */
  readonly resolvedRetentionDays?: number;
  readonly batch?: BatchWriteOptions;
  /** Items a page query evaluates at least, so a rare filter does not cost a round trip per item (default 100). */
  readonly minEvaluated?: number;
}

type Item = Record<string, unknown>;

/** Each page keeps querying until it holds `limit` items, the end, or this many queries. */
const MAX_QUERIES_PER_PAGE = 25;

/**
 * Findings on the single table: pk `FINDINGS`, sk `<cluster>#<rule>#<namespace>#<app>#<subject>`, one item
 * per finding, upserted whole. Evidence is kept as JSON text (any shape, never a secret value).
 */
export function dynamoFindingsStore(
  table: TableRef,
  options: FindingsStoreOptions = {},
): FindingsStore & FindingsReader {
  const clock = options.clock ?? systemClock;
  const retention = (options.resolvedRetentionDays ?? 30) * 24 * 3600;

  const queryAll = async (filter?: string, cluster?: string): Promise<Finding[]> => {
    const out: Finding[] = [];
    const nowSeconds = epochSeconds(clock.now());
    let start: Item | undefined;
    do {
      const page = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          // One cluster's findings: the sort key starts with its name and `#` (findingKey).
          KeyConditionExpression:
            cluster === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': FINDINGS_PK,
            ...(cluster === undefined ? {} : { ':prefix': `${cluster}#` }),
          },
          // Eventually consistent (half the read units): the findings were written by the pass before,
          // minutes ago (passes never overlap: the reconcile function's reserved concurrency is 1), and a
          // pass never reads a cluster it has written.
          ConsistentRead: false,
          ...(filter === undefined ? {} : { FilterExpression: filter }),
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        }),
      );
      for (const item of page.Items ?? []) {
        // DynamoDB deletes expired items lazily; an expired one is gone already.
        if (typeof item.expiresAt === 'number' && item.expiresAt < nowSeconds) continue;
        const finding = findingFromItem(item);
        if (finding !== undefined) out.push(finding);
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return out;
  };

  return {
    loadAll: () => queryAll(),
    loadOpen: () => queryAll('attribute_not_exists(resolvedAt)'),
    loadCluster: (cluster) => queryAll(undefined, cluster),

    async storedClusters() {
      // Only the sort keys, page by page: the names, not the findings, stay in memory.
      const names = new Set<string>();
      let start: Item | undefined;
      do {
        const page = await table.doc.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': FINDINGS_PK },
            ProjectionExpression: 'sk',
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
        for (const item of page.Items ?? []) {
          if (typeof item.sk === 'string') names.add(item.sk.slice(0, item.sk.indexOf('#')));
        }
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      return [...names];
    },

    async write(findings) {
      const items = findings.map((finding) => ({
        PutRequest: { Item: findingItem(finding, retention) },
      }));
      await batchWriteAll(table, items, options.batch);
    },

    ...dynamoFindingsReader(table, options),
  };
}

/** The read API's view: `list` only, so the API function's bundle holds no write to the table. */
export function dynamoFindingsReader(table: TableRef, options: FindingsStoreOptions = {}): FindingsReader {
  const minEvaluated = options.minEvaluated ?? 100;
  return {
    lastPass: () => readLastPass(table),
    async list(filter, page) {
      const prefix = skPrefix(filter);
      const start = startKey(page.cursor, prefix);
      const query = baseQuery(table.tableName, filter, prefix);
      const items: Item[] = [];
      let next: Item | undefined = start;
      for (let queries = 0; queries < MAX_QUERIES_PER_PAGE; queries++) {
        const remaining = page.limit - items.length;
        const result = await withCallerCursor(page.cursor, () =>
          table.doc.send(
            new QueryCommand({
              ...query,
              Limit: Math.max(remaining, minEvaluated),
              ...(next === undefined ? {} : { ExclusiveStartKey: next }),
            }),
          ),
        );
        const got = result.Items ?? [];
        if (got.length > remaining) {
          const kept = got.slice(0, remaining);
          items.push(...kept);
          const last = kept.at(-1) as Item;
          next = { pk: last.pk, sk: last.sk };
          break;
        }
        items.push(...got);
        next = result.LastEvaluatedKey;
        if (next === undefined || items.length >= page.limit) break;
      }
      const nextCursor = encodeCursor(next);
      return {
        items: items.flatMap((item) => {
          const finding = findingFromItem(item);
          return finding === undefined ? [] : [toApi(finding)];
        }),
        ...(nextCursor === undefined ? {} : { nextCursor }),
      };
    },
  };
}

/** Filtering by cluster (and rule) narrows the key range; the rest is a filter on what was read. */
function skPrefix(filter: FindingFilter): string | undefined {
  if (filter.cluster === undefined) return undefined;
  return filter.rule === undefined ? `${filter.cluster}#` : `${filter.cluster}#${filter.rule}#`;
}

function baseQuery(tableName: string, filter: FindingFilter, prefix: string | undefined): QueryCommandInput {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': FINDINGS_PK };
  const conditions: string[] = [];
  if (prefix !== undefined) values[':prefix'] = prefix;
  if (filter.severity !== undefined) {
    names['#severity'] = 'severity';
    values[':severity'] = filter.severity;
    conditions.push('#severity = :severity');
  }
  if (filter.rule !== undefined && filter.cluster === undefined) {
    names['#rule'] = 'rule';
    values[':rule'] = filter.rule;
    conditions.push('#rule = :rule');
  }
  if (filter.includeResolved !== true) conditions.push('attribute_not_exists(resolvedAt)');
  return {
    TableName: tableName,
    KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length === 0 ? {} : { ExpressionAttributeNames: names }),
    ...(conditions.length === 0 ? {} : { FilterExpression: conditions.join(' AND ') }),
  };
}

/** A cursor is ours only if it is a findings key inside the filtered range. */
function startKey(cursor: string | undefined, prefix: string | undefined): Item | undefined {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  const { pk, sk, ...rest } = key;
  if (
    pk !== FINDINGS_PK ||
    typeof sk !== 'string' ||
    Object.keys(rest).length > 0 ||
    (prefix !== undefined && !sk.startsWith(prefix))
  ) {
    throw new BadRequestError('cursor is not valid');
  }
  return { pk, sk };
}

export function findingItem(finding: Finding, retentionSeconds: number): Item {
  return {
    pk: FINDINGS_PK,
    sk: findingKey(finding),
    type: 'finding',
    rule: finding.rule,
    severity: finding.severity,
    cluster: finding.cluster,
    namespace: finding.namespace,
    app: finding.app,
    ...(finding.subject === undefined ? {} : { subject: finding.subject }),
    message: finding.message,
    evidence: JSON.stringify(finding.evidence),
    firstSeen: finding.firstSeen,
    lastSeen: finding.lastSeen,
    ...(finding.resolvedAt === undefined
      ? {}
      : {
          resolvedAt: finding.resolvedAt,
          expiresAt: epochSeconds(new Date(finding.resolvedAt)) + retentionSeconds,
        }),
  };
}

/** A stored item back as a finding; undefined for anything that is not one (never throws). */
export function findingFromItem(item: Item): Finding | undefined {
  const str = (key: string) => (typeof item[key] === 'string' ? (item[key] as string) : undefined);
  const [rule, severity, cluster, namespace, app, message, firstSeen, lastSeen] = [
    'rule',
    'severity',
    'cluster',
    'namespace',
    'app',
    'message',
    'firstSeen',
    'lastSeen',
  ].map(str);
  if (
    rule === undefined ||
    cluster === undefined ||
    namespace === undefined ||
    app === undefined ||
    message === undefined ||
    firstSeen === undefined ||
    lastSeen === undefined ||
    !(SEVERITIES as readonly string[]).includes(severity ?? '')
  ) {
    return undefined;
  }
  const subject = str('subject');
  const resolvedAt = str('resolvedAt');
  return {
    rule,
    severity: severity as Severity,
    cluster,
    namespace,
    app,
    ...(subject === undefined ? {} : { subject }),
    message,
    evidence: parseEvidence(item.evidence),
    firstSeen,
    lastSeen,
    ...(resolvedAt === undefined ? {} : { resolvedAt }),
  };
}

function parseEvidence(value: unknown): Evidence {
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Evidence)
      : {};
  } catch {
    return {};
  }
}

/** What `GET /findings` answers per finding. */
function toApi(finding: Finding): Record<string, unknown> {
  return { ...finding, status: finding.resolvedAt === undefined ? 'open' : 'resolved' };
}
