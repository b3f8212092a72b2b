import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../lib/ports.js';
import type { BatchHandler } from './memory-queue.js';

export interface SqsPollerOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly handler: BatchHandler;
  readonly batchSize: number;
  readonly visibilityTimeoutSeconds: number;
  readonly logger: Logger;
  /** Long-poll wait (default 20 s, SQS's maximum); `stop()` cuts it short. */
  readonly waitSeconds?: number;
}

export interface SqsPoller {
  /** Stops polling, then waits for the batch being handled. */
  stop(): Promise<void>;
}

/**
 * What Lambda's SQS event source mapping does, for the local stack against a real queue: long-poll,
 * hand each batch to the function as an SQS event, delete what succeeded; failed messages come back after
 * their visibility timeout (and go to the dead-letter queue after the queue's maxReceiveCount).
 */
export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const abort = new AbortController();
  const arn = `arn:aws:sqs:local:000000000000:${options.queueUrl.split('/').pop() ?? 'queue'}`;
  const loop = async () => {
    while (!abort.signal.aborted) {
      let messages: Message[];
      try {
        const out = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: options.batchSize,
            WaitTimeSeconds: options.waitSeconds ?? 20,
            VisibilityTimeout: options.visibilityTimeoutSeconds,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = out.Messages ?? [];
      } catch (error) {
        if (abort.signal.aborted) return;
        options.logger.warn('sqs receive failed', { queueUrl: options.queueUrl, error: errorMessage(error) });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (messages.length > 0) await deliver(messages);
    }
  };

  const deliver = async (messages: Message[]) => {
    let failed = new Set<string>();
    try {
      const response = await options.handler({ Records: messages.map((m) => toRecord(m, arn)) });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch {
      return; // a thrown handler fails the whole batch: it comes back after the visibility timeout
    }
    const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
    if (done.length === 0) return;
    await options.client
      .send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
        }),
      )
      .catch((error: unknown) =>
        options.logger.warn('sqs delete failed', { queueUrl: options.queueUrl, error: errorMessage(error) }),
      );
  };

  const running = loop();
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}

function toRecord(m: Message, arn: string): SQSRecord {
  const a = m.Attributes ?? {};
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: 'local',
  };
}
