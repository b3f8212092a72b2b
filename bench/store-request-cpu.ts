import { UpdateCommand } from '../lib/store/document-client.js';
import { createTableRef } from '../lib/store/dynamo.js';
import { loopbackServer } from './loopback-server.js';

/** What the loopback server answers every request with: an app item of six attributes. */
const ANSWER = JSON.stringify({
  Attributes: {
    pk: { S: 'ROLLOUT#0123456789abcdef0123456789abcdef01234567' },
    sk: { S: 'APP#prod-eu#argocd/web' },
    state: { S: 'synced' },
    version: { N: '3' },
    updatedAt: { S: '2026-12-01T10:00:00.000Z' },
    expiresAt: { N: '1796000000' },
  },
});

/**
 * A loopback server in another process (its CPU is not counted) answering every DynamoDB request with an
 * app item, at `endpoint` until `stop()`.
 */
export async function storeDouble(): Promise<{ endpoint: string; stop: () => void }> {
  const server = await loopbackServer(ANSWER, 'application/x-amz-json-1.0');
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: server.stop };
}

/** `count` UpdateItems shaped like an app transition (five values, ReturnValues ALL_NEW), ten in flight. */
export async function burst(
  send: (command: UpdateCommand) => Promise<unknown>,
  count: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await send(
        new UpdateCommand({
          TableName: 't',
          Key: { pk: 'ROLLOUT#0123456789abcdef0123456789abcdef01234567', sk: `APP#prod-eu#argocd/web-${i}` },
          UpdateExpression: 'SET #state = :state, version = :next, updatedAt = :now, expiresAt = :exp',
          ConditionExpression: 'version = :expected',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':state': 'synced',
            ':next': 3,
            ':expected': 2,
            ':now': '2026-12-01T10:00:00.000Z',
            ':exp': 1796000000,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}

/**
 * The store client's CPU per DynamoDB request (an UpdateItem through `createTableRef`'s client), the best of
 * `rounds` bursts of `requests`: what one request costs at the least, whatever the item, on this machine now.
 */
export async function storeRequestCpuMs(requests: number, rounds = 3): Promise<number> {
  const double = await storeDouble();
  const store = createTableRef({ tableName: 't', region: 'local', endpoint: double.endpoint });
  try {
    await burst(store.doc.send, Math.min(500, requests));
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      const before = process.cpuUsage();
      await burst(store.doc.send, requests);
      const used = process.cpuUsage(before);
      best = Math.min(best, (used.user + used.system) / 1000 / requests);
    }
    return best;
  } finally {
    store.client.destroy();
    double.stop();
  }
}
