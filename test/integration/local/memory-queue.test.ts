import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';

const options = { batchSize: 10, visibilityTimeoutMs: 50, maxReceiveCount: 3, pollMs: 5 };

describe('the in-process queue', () => {
  const queues: MemoryQueue<unknown>[] = [];
  const queue = <M>() => {
    const q = new MemoryQueue<M>('test');
    queues.push(q as MemoryQueue<unknown>);
    return q;
  };
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.stop()));
  });

  it('delivers each message as an SQS record whose body is the JSON sent', async () => {
    const q = queue<{ n: number }>();
    const seen: number[] = [];
    q.start(async (event: SQSEvent) => {
      for (const r of event.Records) seen.push((JSON.parse(r.body) as { n: number }).n);
      return { batchItemFailures: [] };
    }, options);
    await q.send({ n: 1 });
    await q.send({ n: 2 });
    await q.idle();
    expect(seen.sort()).toEqual([1, 2]);
    expect(q.depth).toBe(0);
  });

  it('holds a delayed message back until its delay has passed', async () => {
    const q = queue<string>();
    const at: number[] = [];
    const sent = Date.now();
    q.start(async () => {
      at.push(Date.now() - sent);
      return { batchItemFailures: [] };
    }, options);
    await q.send('later', { delaySeconds: 1 });
    await q.idle(2000);
    expect(at[0]).toBeGreaterThanOrEqual(990);
  });

  it.each([
    { name: 'a body over 256 KiB', send: { body: 'x'.repeat(262_144) }, error: /shorter than 262144 bytes/ },
    { name: 'a delay over 900 s', send: { body: 'x', delaySeconds: 901 }, error: /DelaySeconds/ },
    { name: 'a negative delay', send: { body: 'x', delaySeconds: -1 }, error: /DelaySeconds/ },
    { name: 'a fractional delay', send: { body: 'x', delaySeconds: 1.5 }, error: /DelaySeconds/ },
  ])('refuses $name as SQS does (InvalidParameterValue)', async ({ send, error }) => {
    const q = queue<string>();
    const delay = 'delaySeconds' in send ? { delaySeconds: send.delaySeconds } : {};
    await expect(q.send(send.body, delay)).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringMatching(error),
    });
    expect(q.depth).toBe(0);
  });

  it('accepts a body just under 256 KiB (its JSON quotes included)', async () => {
    const q = queue<string>();
    await q.send('x'.repeat(262_142));
    expect(q.depth).toBe(1);
  });

  it.each([
    { name: 'eleven entries', entries: 11, bytes: 10, error: 'TooManyEntriesInBatchRequest' },
    { name: 'more than 256 KiB in all', entries: 5, bytes: 60_000, error: 'BatchRequestTooLong' },
    { name: 'no entry', entries: 0, bytes: 10, error: 'EmptyBatchRequest' },
  ])('refuses a SendMessageBatch of $name', ({ entries, bytes, error }) => {
    const q = queue<string>();
    const batch = Array.from({ length: entries }, (_, i) => ({ id: String(i), body: 'x'.repeat(bytes) }));
    expect(() => q.sendMessageBatch(batch)).toThrow(expect.objectContaining({ name: error }));
    expect(q.depth).toBe(0);
  });

  it('sends a large batch through the port in SQS-sized calls and delivers every entry', async () => {
    const q = queue<{ n: number; pad: string }>();
    const calls: number[] = [];
    const original = q.sendMessageBatch.bind(q);
    q.sendMessageBatch = (entries) => {
      calls.push(entries.length);
      return original(entries);
    };
    const entries = Array.from({ length: 25 }, (_, n) => ({ message: { n, pad: 'p'.repeat(60_000) } }));
    await q.sendBatch(entries);
    expect(q.depth).toBe(25);
    expect(calls.every((c) => c <= 4)).toBe(true);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(25);
  });

  it('enqueues the good entries of a batch and names the one SQS refused', async () => {
    const q = queue<string>();
    await expect(
      q.sendBatch([{ message: 'a' }, { message: 'b', delaySeconds: 901 }, { message: 'c' }]),
    ).rejects.toThrow(/entry 1 \(InvalidParameterValue/);
    expect(q.depth).toBe(2);
  });

  it('redelivers only the messages a batch reported as failed', async () => {
    const q = queue<string>();
    const receives: string[] = [];
    q.start(async (event) => {
      const failures = [];
      for (const r of event.Records) {
        receives.push(JSON.parse(r.body) as string);
        if (JSON.parse(r.body) === 'flaky' && r.attributes.ApproximateReceiveCount === '1') {
          failures.push({ itemIdentifier: r.messageId });
        }
      }
      return { batchItemFailures: failures };
    }, options);
    await q.send('ok');
    await q.send('flaky');
    await q.idle(1000);
    expect(receives.filter((r) => r === 'ok')).toHaveLength(1);
    expect(receives.filter((r) => r === 'flaky')).toHaveLength(2);
  });

  it('moves a message that keeps failing to the dead-letter list after maxReceiveCount receives', async () => {
    const q = queue<string>();
    let calls = 0;
    q.start(async () => {
      calls += 1;
      throw new Error('boom');
    }, options);
    await q.send('poison');
    await q.idle(1000);
    expect(calls).toBe(3);
    expect(q.deadLetters.map((d) => JSON.parse(d.body))).toEqual(['poison']);
  });

  it('brings back a message whose handler outlives the visibility timeout', async () => {
    const q = queue<string>();
    let calls = 0;
    q.start(async () => {
      calls += 1;
      if (calls === 1) await new Promise((r) => setTimeout(r, 200));
      return { batchItemFailures: [] };
    }, options);
    await q.send('slow');
    await q.idle(1000);
    expect(calls).toBe(2);
  });

  it('waits on stop for the batch still being handled', async () => {
    const q = queue<string>();
    let finished = false;
    q.start(async () => {
      await new Promise((r) => setTimeout(r, 100));
      finished = true;
      return { batchItemFailures: [] };
    }, options);
    await q.send('in flight');
    await new Promise((r) => setTimeout(r, 20));
    await q.stop();
    expect(finished).toBe(true);
  });
});
