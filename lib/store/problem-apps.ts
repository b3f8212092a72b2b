import { type AppRecord, type AppTarget, warnReasonsOf } from '../rollouts/app-model.js';
import { type AppState, PROBLEM_STATES } from '../rollouts/state-model.js';
import { QueryCommand } from './document-client.js';
import type { TableRef } from './dynamo.js';
import { appSk, type GSI2, type GSI3, rolloutPk } from './keys.js';

type Item = Record<string, unknown>;

export { PROBLEM_STATES };

const PROBLEM_ORDER = new Map(PROBLEM_STATES.map((state, i) => [state, i]));

/**
 * A sparse index of each rollout's problem apps, so a notice reads O(problems), not O(apps): an app item
 * carries `gsi2pk = PROBLEMS#<sha>` (sort key: the state's listing order, then the app's key) while its
 * state is a problem state, and `gsi3pk = WARNED#<sha>` while the preflight let it through with a warning.
 * Both indexes already exist for the rollout lists (their summaries' partitions are `ROLLOUTS…`, never
 * these), so no table change; an index write is paid only for a problem app's writes.
 */
export function problemsPk(sha: string): string {
  return `PROBLEMS#${sha}`;
}

export function warnedPk(sha: string): string {
  return `WARNED#${sha}`;
}

/** The problem-index attributes for an app moving to `state`: set, or `null` (removed) when not a problem. */
export function problemIndexFields(sha: string, target: AppTarget, state: AppState) {
  const order = PROBLEM_ORDER.get(state);
  if (order === undefined) return { gsi2pk: null, gsi2sk: null };
  return { gsi2pk: problemsPk(sha), gsi2sk: `${String(order).padStart(2, '0')}#${appSk(target)}` };
}

/** The warned-index attributes of an app as recorded (the preflight's verdict is written with the record). */
export function warnedIndexFields(sha: string, target: AppTarget, record: AppRecord) {
  if (warnReasonsOf(record).length === 0) return { gsi3pk: null, gsi3sk: null };
  return { gsi3pk: warnedPk(sha), gsi3sk: appSk(target) };
}

const INDEX_FIELDS: ReadonlySet<string> = new Set(['gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk']);

/**
 * A whole app item (a put) with its index attributes as its state and verdict say: one copy without the
 * old ones, then the ones that apply (no `delete`, which would leave V8 a slow dictionary object to marshal).
 */
export function withProblemIndex(item: Item): Item {
  const sha = String(item.sha);
  const target = item as unknown as AppTarget;
  const problem = problemIndexFields(sha, target, item.state as AppState);
  const warned = warnedIndexFields(sha, target, item as unknown as AppRecord);
  const next: Item = {};
  for (const key of Object.keys(item)) if (!INDEX_FIELDS.has(key)) next[key] = item[key];
  if (problem.gsi2pk !== null) {
    next.gsi2pk = problem.gsi2pk;
    next.gsi2sk = problem.gsi2sk;
  }
  if (warned.gsi3pk !== null) {
    next.gsi3pk = warned.gsi3pk;
    next.gsi3sk = warned.gsi3sk;
  }
  return next;
}

/** At most `limit` items of one index partition, in sort-key order, and whether more are there. */
export async function firstOfIndex(
  table: TableRef,
  index: typeof GSI2 | typeof GSI3,
  pk: string,
  limit: number,
): Promise<{ items: Item[]; more: boolean }> {
  const { Items, LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: index,
      KeyConditionExpression: `${index}pk = :pk`,
      ExpressionAttributeValues: { ':pk': pk },
      Limit: limit,
    }),
  );
  return { items: Items ?? [], more: LastEvaluatedKey !== undefined };
}

/** How many items one index partition holds (past a first page: only then is the count needed). */
export async function countOfIndex(table: TableRef, index: typeof GSI3, pk: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: index,
        KeyConditionExpression: `${index}pk = :pk`,
        ExpressionAttributeValues: { ':pk': pk },
        Select: 'COUNT',
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return count;
}

/**
 * One cluster's problem apps read from the table itself (strongly consistent): for when the index, which
 * DynamoDB updates after the write, shows fewer than the summary's views count. Costs that cluster's apps.
 */
export async function problemAppsOfCluster(table: TableRef, sha: string, cluster: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  const values = Object.fromEntries(PROBLEM_STATES.map((state, i) => [`:s${i}`, state]));
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: `#state IN (${Object.keys(values).join(', ')})`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pk': rolloutPk(sha), ':prefix': `APP#${cluster}#`, ...values },
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}
