import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { UpstreamError } from '../errors.js';
import type { BatchEntry, Queue, SendOptions } from '../ports.js';
import { batchChunks } from './batch-chunks.js';

/** SQS allows at most 15 minutes of delay per message. */
const MAX_DELAY_SECONDS = 900;

export interface SqsQueueOptions {
  /** Tries per batch entry that SQS reports `Failed` (default 3). */
  readonly batchAttempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

interface Pending {
  readonly id: string;
  readonly body: string;
  readonly delaySeconds?: number;
}

export function sqsQueue<M>(client: SQSClient, queueUrl: string, options: SqsQueueOptions = {}): Queue<M> {
  const attempts = Math.max(1, options.batchAttempts ?? 3);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /** Sends one chunk, retrying entries SQS reports `Failed`; returns those that still failed. */
  const sendChunk = async (chunk: readonly Pending[]): Promise<string[]> => {
    let pending = chunk;
    let failures: string[] = [];
    for (let attempt = 1; attempt <= attempts && pending.length > 0; attempt++) {
      if (attempt > 1) await sleep(Math.floor(Math.random() * 100 * 2 ** attempt));
      const out = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: pending.map((e) => ({
            Id: e.id,
            MessageBody: e.body,
            ...(e.delaySeconds === undefined ? {} : { DelaySeconds: delay(e.delaySeconds) }),
          })),
        }),
      );
      const failed = new Map((out.Failed ?? []).map((f) => [f.Id, f]));
      failures = [...failed.values()].map((f) => `entry ${f.Id} (${f.Code ?? 'error'}: ${f.Message ?? ''})`);
      // A sender fault (too large, bad delay) fails the same way every time: no point retrying it.
      if ([...failed.values()].every((f) => f.SenderFault === true)) break;
      pending = pending.filter((e) => failed.has(e.id));
    }
    return failures;
  };

  return {
    async send(message: M, sendOptions: SendOptions = {}) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(message),
          ...(sendOptions.delaySeconds === undefined
            ? {}
            : { DelaySeconds: delay(sendOptions.delaySeconds) }),
        }),
      );
    },
    async sendBatch(entries: readonly BatchEntry<M>[]) {
      const all: Pending[] = entries.map((e, i) => ({
        id: String(i),
        body: JSON.stringify(e.message),
        ...(e.delaySeconds === undefined ? {} : { delaySeconds: e.delaySeconds }),
      }));
      const failures: string[] = [];
      let cause: unknown;
      for (const chunk of batchChunks(all)) {
        try {
          failures.push(...(await sendChunk(chunk)));
        } catch (error) {
          // The whole call failed (a lone entry over the size limit, a timeout): name its entries, go on.
          cause ??= error;
          const name = (error as { name?: string }).name ?? 'Error';
          failures.push(...chunk.map((e) => `entry ${e.id} (${name})`));
        }
      }
      if (failures.length > 0) {
        throw new UpstreamError(`sqs refused ${failures.join(', ')}`, {
          retryable: true,
          code: 'sqs-batch-failed',
          cause,
        });
      }
    },
  };
}

function delay(seconds: number): number {
  return Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(seconds)));
}
