import { BatchWriteCommand, UpdateCommand } from '../lib/store/document-client.js';
import { createTableRef, type TableRef } from '../lib/store/dynamo.js';
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
export function storeRequestCpuMs(requests: number, rounds = 3): Promise<number> {
  return bestCpuPerRequest(requests, rounds, 500, (store) => (count) => burst(store.doc.send, count));
}

/**
 * Through a store client on a fresh double: `make(store)`'s sends, `warm` of them first, then the best of
 * `rounds` rounds of `requests`, in ms of this process's CPU per request.
 */
async function bestCpuPerRequest(
  requests: number,
  rounds: number,
  warm: number,
  make: (store: TableRef) => (count: number) => Promise<void>,
): Promise<number> {
  const double = await storeDouble();
  const store = createTableRef({ tableName: 't', region: 'local', endpoint: double.endpoint });
  try {
    const send = make(store);
    await send(Math.min(warm, requests));
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      const before = process.cpuUsage();
      await send(requests);
      const used = process.cpuUsage(before);
      best = Math.min(best, (used.user + used.system) / 1000 / requests);
    }
    return best;
  } finally {
    store.client.destroy();
    double.stop();
  }
}

/** An app item as a work item's batch puts it (the attributes `lib/store/new-app-records.ts` writes). */
function appItem(i: number): Record<string, unknown> {
  const sha = '0123456789abcdef0123456789abcdef01234567';
  return {
    pk: `ROLLOUT#${sha}`,
    sk: `APP#prod-eu#Application#argocd#web-${i}`,
    type: 'app',
    gsi4pk: `HISTORY#prod-eu#Application#argocd#web-${i}`,
    gsi4sk: `2026-12-01T10:00:00.000Z#${sha}`,
    sha,
    repo: 'acme/gitops',
    ref: 'refs/heads/main',
    trigger: 'push',
    receivedAt: '2026-12-01T10:00:00.000Z',
    expiresAt: 1796000000,
    cluster: 'prod-eu',
    namespace: 'argocd',
    name: `web-${i}`,
    kind: 'Application',
    destination: 'in-cluster',
    state: 'refreshed',
    decision: 'refreshed',
    claimedAt: '2026-12-01T10:00:01.000Z',
    message: 'refreshed',
    fromRevision: 'fedcba9876543210fedcba9876543210fedcba98',
    preflight: { verdict: 'pass', checked: 2 },
    version: 2,
    stateRank: 2,
    updatedAt: '2026-12-01T10:00:02.000Z',
  };
}

/**
 * The store client's CPU per BatchWriteItem of 25 app items (marshalled puts; the double's answer has no
 * unprocessed items), the best of `rounds` bursts of `requests`, four in flight as `batchWriteAll` sends them.
 */
export function storeBatchCpuMs(requests: number, rounds = 3): Promise<number> {
  const items = Array.from({ length: 25 }, (_, i) => appItem(i));
  return bestCpuPerRequest(requests, rounds, 200, (store) => async (count) => {
    let next = 0;
    const worker = async () => {
      while (next++ < count)
        await store.doc.send(
          new BatchWriteCommand({
            RequestItems: { t: items.map((Item) => ({ PutRequest: { Item: { ...Item } } })) },
          }),
        );
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  });
}
