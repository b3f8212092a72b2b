import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { App } from '../../lib/app.js';
import { fanoutHandler } from '../../lib/handlers.js';
import { createMemoryLogger } from '../../lib/logger.js';
import type { PushMessage } from '../../lib/queue/messages.js';

const record = (messageId: string, body: string): SQSRecord => ({
  messageId,
  receiptHandle: messageId,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'x',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:fanout',
  awsRegion: 'eu-west-1',
});

const push = (after: string) => JSON.stringify({ type: 'push', trigger: 'webhook', event: { after } });

describe('the SQS handler of fanout', () => {
  it('reports only the messages that failed, never the whole batch', async () => {
    const handled: string[] = [];
    const app = {
      logger: createMemoryLogger(),
      fanout: async (message: PushMessage) => {
        if (message.event.after === 'bad') throw new Error('cluster exploded');
        handled.push(message.event.after);
      },
    } as unknown as App;
    const event: SQSEvent = {
      Records: [
        record('m1', push('ok-1')),
        record('m2', push('bad')),
        record('m3', '{not json'),
        record('m4', push('ok-2')),
      ],
    };
    const result = await fanoutHandler(async () => app)(event);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m2', 'm3']);
    expect(handled.sort()).toEqual(['ok-1', 'ok-2']);
  });

  it('answers every message failed when all fail, so SQS retries each of them', async () => {
    const app = {
      logger: createMemoryLogger(),
      fanout: async () => Promise.reject(new Error('down')),
    } as unknown as App;
    const result = await fanoutHandler(async () => app)({
      Records: [record('a', push('x')), record('b', push('y'))],
    });
    expect(result.batchItemFailures).toHaveLength(2);
  });
});
