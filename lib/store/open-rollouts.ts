import type { OpenRollouts } from '../rollouts/ports/open-rollouts.js';
import { DeleteCommand, UpdateCommand } from './document-client.js';
import { epochSeconds, ignoreConditionFailure, queryAll, type TableRef } from './dynamo.js';
import { OPEN_PK } from './keys.js';

/**
 * Rollouts that have not ended, with their deadline: what the sweep looks at, one small item each. Every
 * open (a start, or a revival: a retry, a catch-up or rollback push, a release) adds to `opens`, and the
 * sweep closes an item only at the count it listed, so a rollout revived while the sweep was closing it
 * stays open and is swept again. Each open sets a TTL as long as the rollout's records live (`ttlSeconds`):
 * an item the sweep never closed (a bug, a table restored from a backup) cannot outlive its rollout and grow
 * the partition the sweep reads every minute.
 */
export function dynamoOpenRollouts(table: TableRef, ttlSeconds: number): OpenRollouts {
  const key = (sha: string) => ({ pk: OPEN_PK, sk: sha });
  return {
    async open(sha, deadline) {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key(sha),
          UpdateExpression: 'SET sha = :sha, deadline = :deadline, expiresAt = :ttl ADD opens :one',
          ExpressionAttributeValues: {
            ':sha': sha,
            ':deadline': deadline,
            ':ttl': epochSeconds(new Date()) + ttlSeconds,
            ':one': 1,
          },
        }),
      );
    },
    async close(sha, opens) {
      // Items written before the count existed were listed as 0.
      await table.doc
        .send(
          new DeleteCommand({
            TableName: table.tableName,
            Key: key(sha),
            ConditionExpression: opens === 0 ? 'attribute_not_exists(opens)' : 'opens = :opens',
            ...(opens === 0 ? {} : { ExpressionAttributeValues: { ':opens': opens } }),
          }),
        )
        .catch(ignoreConditionFailure);
    },
    async list() {
      return (await queryAll(table, OPEN_PK, '')).map((item) => ({
        sha: String(item.sha),
        deadline: String(item.deadline),
        opens: Number(item.opens ?? 0),
      }));
    },
  };
}
