import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../../infra/local/dynamodb.js';
import type { Queue } from '../../../lib/ports.js';
import type { PointerMessage, PushMessage } from '../../../lib/queue/messages.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoPayloadStore } from '../../../lib/store/payloads.js';
import { type FaultQueue, faultQueue } from '../../helpers/fault-queue.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import {
  commitDefaultChange,
  expectDefaultOutcome,
  patchesPerObject,
  resetRequestLogs,
  withManyFiles,
} from './support/default-change.js';

async function deliveryState(stack: TestStack, id: string): Promise<string | undefined> {
  const client = localDynamoClient(stack.dynamodbEndpoint);
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: stack.config.tableName,
      Key: { pk: { S: `DELIVERY#github#${id}` }, sk: { S: '#' } },
      ConsistentRead: true,
    }),
  );
  client.destroy();
  return Item?.state?.S;
}

describe('delivery faults through the local stack (in-process queues)', () => {
  let stack: TestStack;
  let pushQueue: FaultQueue<PushMessage | PointerMessage> | undefined;
  const sentToQueue: unknown[] = [];
  beforeAll(async () => {
    stack = await startTestStack(
      {},
      {
        wrapQueue: <M>(name: 'push' | 'track', queue: Queue<M>) => {
          if (name !== 'push') return queue;
          const spy: Queue<M> = {
            send: (message, options) => {
              sentToQueue.push(message);
              return queue.send(message, options);
            },
            sendBatch: (entries) => queue.sendBatch(entries),
          };
          const wrapped = faultQueue(spy);
          pushQueue = wrapped as unknown as FaultQueue<PushMessage | PointerMessage>;
          return wrapped;
        },
      },
    );
  }, 60_000);
  afterAll(async () => stack?.close());

  it('enqueues a push whose first enqueue failed when the provider redelivers it, and fans it out once', async () => {
    resetRequestLogs(stack);
    const { after, delivery } = await commitDefaultChange(stack, 'gh-enqueue-fails');
    pushQueue?.failNextSends(1);
    const failed = await stack.post('/webhooks/github', delivery);
    expect(failed.status).toBe(503);
    expect(await deliveryState(stack, 'gh-enqueue-fails')).toBe('received');

    const redelivered = await stack.post('/webhooks/github', delivery);
    expect(redelivered).toMatchObject({
      status: 202,
      body: { delivery: 'gh-enqueue-fails', rollout: after },
    });
    expect(await deliveryState(stack, 'gh-enqueue-fails')).toBe('enqueued');
    expect(pushQueue?.calls.map((c) => c.outcome)).toEqual(['failed', 'sent']);

    expectDefaultOutcome(await stack.rolloutWhenDone(after));
    const again = await stack.post('/webhooks/github', delivery);
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    const patches = [...patchesPerObject(stack).entries()];
    expect(patches.length).toBeGreaterThan(0);
    expect(patches.filter(([, n]) => n !== 1)).toEqual([]);
  }, 60_000);

  it('accepts a push of 50 commits × 120 paths (≈450 KB), offloads it, and fans it out with every file', async () => {
    const { after, delivery: plain } = await commitDefaultChange(stack, 'gh-large-push');
    const delivery = withManyFiles(plain, 50, 120);
    expect(Buffer.byteLength(delivery.body)).toBeGreaterThan(400_000);
    sentToQueue.splice(0);

    const response = await stack.post('/webhooks/github', delivery);
    expect(response).toMatchObject({ status: 202, body: { rollout: after } });
    const pointer = sentToQueue[0] as PointerMessage;
    expect(pointer).toMatchObject({ type: 'pointer', for: 'push' });
    expect(Buffer.byteLength(JSON.stringify(pointer))).toBeLessThan(1024);

    const table = createTableRef({
      tableName: stack.config.tableName,
      region: 'local',
      endpoint: stack.dynamodbEndpoint,
    });
    const stored = JSON.parse(await dynamoPayloadStore(table, 60).get(pointer.payload)) as PushMessage;
    table.client.destroy();
    const files = stored.event.changedFiles;
    expect(files.known && files.files.length).toBe(50 * 120 + 1);

    // The real change is the last file of 6,001: the apps it covers are refreshed, the others path-missed.
    expectDefaultOutcome(await stack.rolloutWhenDone(after));
  }, 60_000);

  it('enqueues five concurrent deliveries of one id at least once and patches each app once', async () => {
    resetRequestLogs(stack);
    const { after, delivery } = await commitDefaultChange(stack, 'gh-concurrent');
    // The webhook sends single messages; the plan's work items go out with sendBatch.
    const sends = () => (pushQueue?.calls ?? []).filter((c) => c.kind === 'send').length;
    const before = sends();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => stack.post('/webhooks/github', delivery)),
    );
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => a.status !== 202)).toEqual(
      Array.from({ length: 5 - accepted.length }, () => ({ status: 200, body: { duplicate: true } })),
    );
    expect(sends() - before).toBe(accepted.length);
    expect(await deliveryState(stack, 'gh-concurrent')).toBe('enqueued');

    expectDefaultOutcome(await stack.rolloutWhenDone(after));
    const patches = [...patchesPerObject(stack).entries()];
    expect(patches.length).toBeGreaterThan(0);
    expect(patches.filter(([, n]) => n !== 1)).toEqual([]);
  }, 60_000);
});
