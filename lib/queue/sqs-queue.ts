import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue, SendOptions } from '../ports.js';

/** SQS allows at most 15 minutes of delay per message. */
const MAX_DELAY_SECONDS = 900;

export function sqsQueue<M>(client: SQSClient, queueUrl: string): Queue<M> {
  const queue: Queue<M> = {
    async sendBatch(entries) {
      for (const entry of entries) {
        await queue.send(
          entry.message,
          entry.delaySeconds === undefined ? {} : { delaySeconds: entry.delaySeconds },
        );
      }
    },
    async send(message: M, options: SendOptions = {}) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(message),
          ...(options.delaySeconds === undefined
            ? {}
            : { DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(options.delaySeconds))) }),
        }),
      );
    },
  };
  return queue;
}
