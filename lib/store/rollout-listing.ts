import type { RolloutSummary } from '../rollouts/rollout-model.js';
import { GetCommand, type NativeItem, PutCommand, UpdateCommand } from './document-client.js';
import { ignoreConditionFailure, type TableRef } from './dynamo.js';
import { LISTING_SK, rolloutPk, SUMMARY_SK, summaryIndexFields } from './keys.js';
import { summaryFromItem } from './rollout-items.js';

/**
 * A rollout's entry in the indexes: a small item beside its summary that carries the summary's index keys
 * (newest-first lists on gsi2/gsi3, short SHAs on gsi1) and the refs a list filters on. The summary itself is
 * in no index: every index projects ALL, so an indexed summary had each of its updates (every track poll
 * that changes an app) rewrite three index entries at the summary's full size, three quarters of its write
 * units. The entry is written once, when the rollout starts, and again only when a ref is added.
 * A summary written before entries existed still carries the keys itself; lists read both.
 */
export interface ListedRollout {
  readonly sha: string;
  readonly repo: string;
  readonly ref: string;
  readonly receivedAt: string;
}

/** Written before the summary, so a summary is never unlisted; an entry whose summary is missing is skipped. */
export async function putListing(table: TableRef, rollout: ListedRollout, expiresAt: number): Promise<void> {
  await table.doc
    .send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          pk: rolloutPk(rollout.sha),
          sk: LISTING_SK,
          type: 'listing',
          sha: rollout.sha,
          repo: rollout.repo,
          receivedAt: rollout.receivedAt,
          refs: [rollout.ref],
          ...summaryIndexFields(rollout),
          expiresAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    )
    .catch(ignoreConditionFailure);
}

/**
 * Another ref of the commit on the entry, for the ref filter: the first `max` distinct ones, as the summary
 * keeps them (summary-caps.ts). Sent before the summary's, so a retry after a failure between the two still
 * lists it.
 */
export async function addListedRef(table: TableRef, sha: string, ref: string, max: number): Promise<void> {
  await table.doc
    .send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: rolloutPk(sha), sk: LISTING_SK },
        UpdateExpression: 'SET #refs = list_append(#refs, :ref)',
        ConditionExpression:
          'attribute_exists(#refs) AND NOT contains(#refs, :refValue) AND size(#refs) < :max',
        ExpressionAttributeNames: { '#refs': 'refs' },
        ExpressionAttributeValues: { ':ref': [ref], ':refValue': ref, ':max': max },
      }),
    )
    // Listed already, at the cap, or no entry (a rollout from before entries: its summary is listed itself).
    .catch(ignoreConditionFailure);
}

/** The summaries of a page of index items, in its order: entries are read through, old summaries used as are. */
export async function summariesOfListed(
  table: TableRef,
  items: readonly NativeItem[],
): Promise<RolloutSummary[]> {
  const summaries = await Promise.all(
    items.map(async (item) => {
      if (item.sk === SUMMARY_SK) return item;
      const { Item } = await table.doc.send(
        new GetCommand({ TableName: table.tableName, Key: { pk: item.pk, sk: SUMMARY_SK } }),
      );
      return Item;
    }),
  );
  return summaries.filter((item): item is NativeItem => item !== undefined).map(summaryFromItem);
}
