import type { OpenRollouts } from '../rollouts/rollout-store.js';
import { DeleteCommand, PutCommand } from './document-client.js';
import { queryAll, type TableRef } from './dynamo.js';
import { OPEN_PK } from './keys.js';

/** Rollouts that have not ended, with their deadline: what the sweep looks at, one small item each. */
export function dynamoOpenRollouts(table: TableRef): OpenRollouts {
  return {
    async open(sha, deadline) {
      await table.doc.send(
        new PutCommand({ TableName: table.tableName, Item: { pk: OPEN_PK, sk: sha, sha, deadline } }),
      );
    },
    async close(sha) {
      await table.doc.send(new DeleteCommand({ TableName: table.tableName, Key: { pk: OPEN_PK, sk: sha } }));
    },
    async list() {
      return (await queryAll(table, OPEN_PK, '')).map((item) => ({
        sha: String(item.sha),
        deadline: String(item.deadline),
      }));
    },
  };
}
