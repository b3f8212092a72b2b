import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import type { App } from '../../../lib/app.js';
import { fanoutHandler, trackHandler } from '../../../lib/handlers.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PayloadStore } from '../../../lib/ports.js';
import type { PointerMessage, PushMessage, TrackMessage } from '../../../lib/queue/messages.js';
import { offloadQueue, resolveQueueBody } from '../../../lib/queue/offload-queue.js';
import { createTableRef, queryAll, type TableRef } from '../../../lib/store/dynamo.js';
import { dynamoPayloadStore } from '../../../lib/store/payloads.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

/** The SQS events a MemoryQueue would deliver, collected without running a consumer loop. */
async function drain(queue: MemoryQueue<unknown>): Promise<SQSEvent> {
  const events: SQSEvent[] = [];
  queue.start(
    async (event) => {
      events.push(event);
      return { batchItemFailures: [] };
    },
    { batchSize: 10, visibilityTimeoutMs: 1000, maxReceiveCount: 1, pollMs: 5 },
  );
  await queue.idle();
  await queue.stop();
  return { Records: events.flatMap((e) => e.Records) };
}

describe('the offloading queue wrapper over DynamoDB (dynalite)', () => {
  let table: TestTable;
  let ref: TableRef;
  let payloads: PayloadStore;
  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    payloads = dynamoPayloadStore(ref, 3600);
  });
  afterAll(async () => table.close());

  it('passes a small message through unchanged, with its delay rounded and clamped to 0-900 s', async () => {
    const inner = new MemoryQueue<PushMessage | PointerMessage>('push');
    const queue = offloadQueue<{ type: string; n: number }>(inner as never, payloads);
    await queue.send({ type: 'track', n: 1 }, { delaySeconds: 1.4 });
    await queue.sendBatch([{ message: { type: 'track', n: 2 }, delaySeconds: 5000 }]);
    expect(inner.depth).toBe(2);
    inner.advance(900_000);
    const bodies = (await drain(inner as MemoryQueue<unknown>)).Records.map((r) => JSON.parse(r.body));
    expect(bodies).toEqual([
      { type: 'track', n: 1 },
      { type: 'track', n: 2 },
    ]);
  });

  it('stores a message over 200 KiB in DynamoDB and queues a pointer that resolves to the same body', async () => {
    const inner = new MemoryQueue<unknown>('track');
    const queue = offloadQueue<{ type: 'track'; pad: string }>(inner as never, payloads);
    const message = { type: 'track' as const, pad: 'x'.repeat(300 * 1024) };
    await queue.send(message);
    const [record] = (await drain(inner)).Records;
    const pointer = JSON.parse(record?.body ?? '') as PointerMessage;
    expect(pointer).toMatchObject({ type: 'pointer', for: 'track' });
    expect(await resolveQueueBody(record?.body ?? '', payloads)).toBe(JSON.stringify(message));
  });

  it('splits a payload that does not compress into items well under 400 KB and reads it back whole', async () => {
    const body = JSON.stringify({ type: 'push', blob: randomBytes(700_000).toString('base64') });
    const key = await payloads.put(body);
    const items = await queryAll(ref, `PAYLOAD#${key}`, 'CHUNK#');
    expect(items.length).toBeGreaterThanOrEqual(3);
    for (const item of items) expect((item.data as Uint8Array).length).toBeLessThanOrEqual(300_000);
    expect(await payloads.get(key)).toBe(body);
  });

  it('refuses a pointer whose payload is missing, so the message is retried and then dead-lettered', async () => {
    await expect(payloads.get('0'.repeat(64))).rejects.toMatchObject({ name: 'PayloadMissingError' });
  });

  it.each([
    ['fanout', 'push'],
    ['track', 'track'],
  ] as const)('resolves pointers in the %s consumer before the message is parsed', async (_fn, type) => {
    const inner = new MemoryQueue<unknown>(type);
    const seen: unknown[] = [];
    const app = {
      logger: createMemoryLogger(),
      fanout: async (m: PushMessage) => {
        seen.push(m);
      },
      track: async (m: TrackMessage) => {
        seen.push(m);
      },
      resolveQueueBody: (body: string) => resolveQueueBody(body, payloads),
    } as unknown as App;
    const message = { type, pad: 'y'.repeat(250 * 1024) };
    await offloadQueue<typeof message>(inner as never, payloads).send(message);
    const event = await drain(inner);
    const handler = type === 'push' ? fanoutHandler(async () => app) : trackHandler(async () => app);
    const result = await handler(event);
    expect(result.batchItemFailures).toEqual([]);
    expect(seen).toEqual([message]);
  });
});
