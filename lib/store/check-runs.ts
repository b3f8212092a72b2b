import type { CheckRunRecord, CheckRunStore } from '../check-run/check-run-store.js';
import { CHECK_RUN_NAME } from '../check-run/plan.js';
import type { Clock } from '../ports.js';
import { GetCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, isConditionFailure, type TableRef } from './dynamo.js';
import { feedbackSk, rolloutPk } from './keys.js';

/** A create claim older than this is taken over: its caller died between the claim and GitHub's answer. */
const STALE_CLAIM_MS = 60_000;

const NAMES = {
  '#kind': 'kind',
  '#target': 'target',
  '#state': 'state',
  '#error': 'error',
  '#rank': 'rank',
  '#type': 'type',
} as const;

/**
 * A commit's check run under its rollout (`ROLLOUT#<sha>` / `FEEDBACK#check-run#gitops-sync`): the
 * feedback entry (`kind`, `target`, `state`, `error`, `errorAt`) plus GitHub's id, the hash of what was
 * last posted and its rank. Every step is a conditional write, so two pollers or a redelivery never create
 * a second check run nor post the same view twice, and an older view never overwrites a later one.
 */
export function dynamoCheckRuns(table: TableRef, ttlSeconds: number, clock?: Clock): CheckRunStore {
  const now = () => clock?.now() ?? new Date();
  const Key = (sha: string) => ({ pk: rolloutPk(sha), sk: feedbackSk('check-run', CHECK_RUN_NAME) });
  const update = async (
    sha: string,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> => {
    const used = Object.fromEntries(
      Object.entries(NAMES).filter(([name]) => expression.includes(name) || condition.includes(name)),
    );
    try {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: Key(sha),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ...(Object.keys(used).length === 0 ? {} : { ExpressionAttributeNames: used }),
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  };
  const entry =
    'SET #type = :type, #kind = :kind, #target = :target, #state = if_not_exists(#state, :none), expiresAt = :ttl';
  const base = () => ({
    ':type': 'feedback',
    ':kind': 'check-run',
    ':target': CHECK_RUN_NAME,
    ':none': 'none',
    ':ttl': epochSeconds(now()) + ttlSeconds,
  });
  return {
    async read(sha) {
      const { Item } = await table.doc.send(
        new GetCommand({ TableName: table.tableName, Key: Key(sha), ConsistentRead: true }),
      );
      if (Item === undefined) return undefined;
      const record: CheckRunRecord = {
        kind: 'check-run',
        target: CHECK_RUN_NAME,
        state: typeof Item.state === 'string' ? Item.state : 'none',
        ...(typeof Item.checkRunId === 'number' ? { id: Item.checkRunId } : {}),
        ...(typeof Item.posted === 'string' ? { posted: Item.posted } : {}),
        ...(typeof Item.error === 'string' ? { error: Item.error, errorAt: String(Item.errorAt ?? '') } : {}),
      };
      return record;
    },
    claimCreate: (sha, posted, rank) =>
      update(
        sha,
        `${entry}, posted = :posted, #rank = :rank, claimedAt = :at`,
        'attribute_not_exists(checkRunId) AND (attribute_not_exists(claimedAt) OR claimedAt < :stale)',
        {
          ...base(),
          ':posted': posted,
          ':rank': rank,
          ':at': now().toISOString(),
          ':stale': new Date(now().getTime() - STALE_CLAIM_MS).toISOString(),
        },
      ),
    created: (sha, id, posted, state) =>
      update(
        sha,
        'SET checkRunId = :id, #state = :state REMOVE claimedAt, #error, errorAt',
        'attribute_not_exists(checkRunId) AND posted = :posted',
        { ':id': id, ':state': state, ':posted': posted },
      ),
    claimUpdate: (sha, posted, rank) =>
      update(
        sha,
        'SET posted = :posted, #rank = :rank, claimedAt = :at',
        'attribute_exists(checkRunId) AND (attribute_not_exists(posted) OR (posted <> :posted AND #rank <= :rank))',
        { ':posted': posted, ':rank': rank, ':at': now().toISOString() },
      ),
    async confirm(sha, posted, state) {
      await update(sha, 'SET #state = :state REMOVE claimedAt, #error, errorAt', 'posted = :posted', {
        ':state': state,
        ':posted': posted,
      });
    },
    async release(sha, posted, error) {
      // Unclaimed (no posted, no rank: any view may claim again), the error kept for the rollout's feedback.
      await update(
        sha,
        'SET #error = :error, errorAt = :at REMOVE posted, #rank, claimedAt',
        'posted = :posted',
        { ':posted': posted, ':error': error, ':at': now().toISOString() },
      );
    },
  };
}
