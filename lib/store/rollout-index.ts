import type { RolloutFilter, RolloutIndex } from '../api/rollout-index.js';
import { BadRequestError } from '../errors.js';
import type { RolloutSummary } from '../rollouts/rollout-model.js';
import { QueryCommand } from './document-client.js';
import { decodeCursor, encodeCursor, type TableRef, withCallerCursor } from './dynamo.js';
import { GSI1, GSI2, GSI3, ROLLOUTS_PK, repoRolloutsPk, shaPrefixPk } from './keys.js';
import { summariesOfListed } from './rollout-listing.js';

/** A ref filter reads at most this many pages per request, then hands back a cursor (bounded cost). */
const MAX_PAGES = 10;

/**
 * Newest-first lists of rollout summaries (gsi2: all, gsi3: one repository) and short-SHA lookups (gsi1), over
 * the rollouts' list entries (rollout-listing.ts).
 */
export function dynamoRolloutIndex(table: TableRef): RolloutIndex {
  return {
    async list(filter, page) {
      const index = filter.repo === undefined ? GSI2 : GSI3;
      const partition = filter.repo === undefined ? ROLLOUTS_PK : repoRolloutsPk(filter.repo);
      let start = checkedCursor(page.cursor, index, partition);
      const items: RolloutSummary[] = [];
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const result = await withCallerCursor(page.cursor, () =>
          table.doc.send(
            new QueryCommand({
              TableName: table.tableName,
              IndexName: index,
              KeyConditionExpression: '#pk = :pk',
              ExpressionAttributeNames: { '#pk': `${index}pk`, ...refNames(filter) },
              ExpressionAttributeValues: { ':pk': partition, ...refValues(filter) },
              ...refFilter(filter),
              ScanIndexForward: false,
              // Never more than the page still needs, so the last key read is where the next page starts.
              Limit: page.limit - items.length,
              ...(start === undefined ? {} : { ExclusiveStartKey: start }),
            }),
          ),
        );
        items.push(...(await summariesOfListed(table, result.Items ?? [])));
        start = result.LastEvaluatedKey;
        if (start === undefined || items.length >= page.limit) break;
      }
      const cursor = encodeCursor(start);
      return { items, ...(cursor === undefined ? {} : { cursor }) };
    },

    async shasWithPrefix(prefix, max) {
      const result = await table.doc.send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: GSI1,
          KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
          ExpressionAttributeValues: { ':pk': shaPrefixPk(prefix), ':prefix': prefix },
          ProjectionExpression: 'sha',
          Limit: max,
        }),
      );
      return (result.Items ?? []).map((item) => String(item.sha));
    },
  };
}

/** A cursor must be a start key of this very index and partition; anything else is the caller's mistake. */
function checkedCursor(cursor: string | undefined, index: string, partition: string) {
  const key = decodeCursor(cursor);
  if (key === undefined) return undefined;
  const names = Object.keys(key).sort().join(',');
  const expected = ['pk', 'sk', `${index}pk`, `${index}sk`].sort().join(',');
  const strings = Object.values(key).every((v) => typeof v === 'string' && v.length <= 1024);
  if (names !== expected || !strings || key[`${index}pk`] !== partition) {
    throw new BadRequestError('cursor is not valid for this list');
  }
  return key;
}

/** `main` matches a branch or a tag of that name; a qualified `refs/...` only itself. */
function refCandidates(ref: string): string[] {
  return ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

function refNames(filter: RolloutFilter): Record<string, string> {
  return filter.ref === undefined ? {} : { '#refs': 'refs' };
}

function refValues(filter: RolloutFilter): Record<string, string> {
  if (filter.ref === undefined) return {};
  return Object.fromEntries(refCandidates(filter.ref).map((ref, i) => [`:ref${i}`, ref]));
}

function refFilter(filter: RolloutFilter): { FilterExpression?: string } {
  if (filter.ref === undefined) return {};
  const clauses = refCandidates(filter.ref).map((_, i) => `contains(#refs, :ref${i})`);
  return { FilterExpression: clauses.join(' OR ') };
}
