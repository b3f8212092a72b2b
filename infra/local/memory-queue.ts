import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Queue, SendOptions } from '../../lib/ports.js';

export interface QueueConsumerOptions {
  readonly batchSize: number;
  readonly visibilityTimeoutMs: number;
  /** After this many receives a failing message goes to the dead-letter list (SQS `maxReceiveCount`). */
  readonly maxReceiveCount: number;
  readonly pollMs?: number;
}

interface Stored {
  readonly messageId: string;
  readonly body: string;
  readonly sentAt: number;
  visibleAt: number;
  receiveCount: number;
}

export type BatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/**
 * An in-process queue with the SQS semantics the functions rely on: at-least-once delivery, per-message
 * delay, a visibility timeout (a message whose batch failed or timed out comes back), partial batch failures
 * (`batchItemFailures`), and redrive to a dead-letter list after `maxReceiveCount` receives.
 */
export class MemoryQueue<M> implements Queue<M> {
  readonly deadLetters: { messageId: string; body: string; receiveCount: number }[] = [];
  private readonly messages = new Map<string, Stored>();
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];
  private stopped = true;
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    readonly name: string,
    private readonly now: () => number = Date.now,
  ) {}

  async send(message: M, options: SendOptions = {}): Promise<void> {
    const body = JSON.stringify(message);
    const sentAt = this.now();
    const messageId = randomUUID();
    this.messages.set(messageId, {
      messageId,
      body,
      sentAt,
      visibleAt: sentAt + Math.min(options.delaySeconds ?? 0, 900) * 1000,
      receiveCount: 0,
    });
  }

  async sendBatch(entries: readonly { message: M; delaySeconds?: number }[]): Promise<void> {
    for (const entry of entries) {
      await this.send(
        entry.message,
        entry.delaySeconds === undefined ? {} : { delaySeconds: entry.delaySeconds },
      );
    }
  }

  /** Removes and returns every waiting message (benchmarks and tests that run the consumer themselves). */
  takeAll(): M[] {
    const bodies = [...this.messages.values()].map((m) => JSON.parse(m.body) as M);
    this.messages.clear();
    return bodies;
  }

  /** Makes every waiting message due `ms` sooner (tests of delayed retries without waiting). */
  advance(ms: number): void {
    for (const m of this.messages.values()) m.visibleAt -= ms;
  }

  get depth(): number {
    return this.messages.size;
  }

  /** Starts delivering batches to `handler` until `stop()`. */
  start(handler: BatchHandler, options: QueueConsumerOptions): void {
    const tick = async () => {
      this.timer = undefined;
      const batch = this.receive(options);
      if (batch.length > 0) {
        this.inFlight += 1;
        await this.deliver(batch, handler, options).finally(() => {
          this.inFlight -= 1;
        });
      }
      this.notifyIdle();
      if (this.stopped) return;
      this.timer = setTimeout(() => void tick(), batch.length > 0 ? 0 : (options.pollMs ?? 25));
    };
    this.stopped = false;
    this.timer = setTimeout(() => void tick(), 0);
  }

  /** Stops receiving, then waits for the handlers still running (even past their visibility timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.running]);
  }

  /** Resolves when no message is visible, none is in flight, and none is delayed beyond `withinMs`. */
  async idle(withinMs = 0): Promise<void> {
    while (!this.isIdle(withinMs)) {
      await new Promise<void>((resolve) => {
        this.idleWaiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
  }

  private isIdle(withinMs: number): boolean {
    if (this.inFlight > 0) return false;
    const horizon = this.now() + withinMs;
    for (const m of this.messages.values()) if (m.visibleAt <= horizon) return false;
    return true;
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private receive(options: QueueConsumerOptions): Stored[] {
    const now = this.now();
    const batch: Stored[] = [];
    for (const m of this.messages.values()) {
      if (batch.length >= options.batchSize) break;
      if (m.visibleAt > now) continue;
      if (m.receiveCount >= options.maxReceiveCount) {
        this.messages.delete(m.messageId);
        this.deadLetters.push({ messageId: m.messageId, body: m.body, receiveCount: m.receiveCount });
        continue;
      }
      m.receiveCount += 1;
      m.visibleAt = now + options.visibilityTimeoutMs;
      batch.push(m);
    }
    return batch;
  }

  private async deliver(
    batch: Stored[],
    handler: BatchHandler,
    options: QueueConsumerOptions,
  ): Promise<void> {
    const event: SQSEvent = { Records: batch.map((m) => this.toRecord(m)) };
    let failed: Set<string>;
    try {
      const running = handler(event);
      this.running.add(running);
      void running.then(
        () => this.running.delete(running),
        () => this.running.delete(running),
      );
      const response = await withTimeout(running, options.visibilityTimeoutMs);
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch {
      // A thrown handler fails the whole batch: every message comes back after its visibility timeout.
      return;
    }
    for (const m of batch) if (!failed.has(m.messageId)) this.messages.delete(m.messageId);
  }

  private toRecord(m: Stored): SQSRecord {
    return {
      messageId: m.messageId,
      receiptHandle: `${m.messageId}:${m.receiveCount}`,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(this.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.name}`,
      awsRegion: 'local',
    };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`handler exceeded the visibility timeout of ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
