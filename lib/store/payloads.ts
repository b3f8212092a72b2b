import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PayloadStore } from '../ports.js';
import { PutCommand } from './document-client.js';
import { epochSeconds, queryAll, type TableRef } from './dynamo.js';
import { payloadChunkSk, payloadPk } from './keys.js';

/** Well under DynamoDB's 400 KB item limit, leaving room for the key and attribute names. */
const CHUNK_BYTES = 300_000;

export class PayloadMissingError extends Error {
  override readonly name = 'PayloadMissingError';
}

/**
 * Large queue message bodies in DynamoDB: gzipped (push events compress well), split into items of at
 * most 300 KB, keyed by the body's SHA-256 so a retried put rewrites the same items. `ttlSeconds` must
 * outlive the message on its queue and dead-letter queue.
 */
export function dynamoPayloadStore(
  table: TableRef,
  ttlSeconds: number,
  now: () => number = Date.now,
): PayloadStore {
  return {
    async put(body: string) {
      const key = createHash('sha256').update(body, 'utf8').digest('hex');
      const zipped = gzipSync(Buffer.from(body, 'utf8'));
      const chunks = Math.max(1, Math.ceil(zipped.length / CHUNK_BYTES));
      const expiresAt = epochSeconds(new Date(now())) + ttlSeconds;
      for (let i = 0; i < chunks; i++) {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              pk: payloadPk(key),
              sk: payloadChunkSk(i),
              type: 'payload',
              chunks,
              data: zipped.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
              expiresAt,
            },
          }),
        );
      }
      return key;
    },
    async get(key: string) {
      if (!/^[0-9a-f]{64}$/.test(key)) throw new PayloadMissingError(`payload key ${key} is not a SHA-256`);
      const items = await queryAll(table, payloadPk(key), 'CHUNK#');
      const expected = Number(items[0]?.chunks ?? 0);
      if (items.length === 0 || items.length !== expected) {
        throw new PayloadMissingError(`payload ${key} has ${items.length} of ${expected} chunks`);
      }
      items.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
      const body = gunzipSync(Buffer.concat(items.map((i) => i.data as Uint8Array))).toString('utf8');
      if (createHash('sha256').update(body, 'utf8').digest('hex') !== key) {
        throw new PayloadMissingError(`payload ${key} does not match its hash`);
      }
      return body;
    },
  };
}
