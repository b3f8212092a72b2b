import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqsServer, startSqsServer } from '../../../infra/local/sqs-server.js';
import { awsRequestHandler } from '../../../lib/aws/http-handler.js';
import { sqsQueue } from '../../../lib/queue/sqs-queue.js';
import { startFaultProxy } from '../../helpers/fault-proxy.js';

describe('the SQS-compatible server, through @aws-sdk/client-sqs', () => {
  let server: SqsServer;
  let sqs: SQSClient;
  let n = 0;
  const fresh = () => {
    n += 1;
    return `q${n}`;
  };
  beforeAll(async () => {
    server = await startSqsServer({
      queues: Array.from({ length: 12 }, (_, i) => ({ name: `q${i + 1}`, visibilityTimeoutSeconds: 30 })),
    });
    sqs = new SQSClient({
      region: 'local',
      endpoint: server.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: awsRequestHandler({ requestTimeoutMs: 25_000 }),
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    sqs.destroy();
    await server.close();
  });

  it('sends, receives and deletes a message; a deleted message does not come back', async () => {
    const url = server.queueUrl(fresh());
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"type":"push"}' }));
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
    );
    expect(Messages?.map((m) => m.Body)).toEqual(['{"type":"push"}']);
    expect(Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
    await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: Messages?.[0]?.ReceiptHandle }));
    await sqs
      .send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: 'x#y', VisibilityTimeout: 0 }))
      .catch(() => undefined);
    const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
    expect(again.Messages ?? []).toEqual([]);
  });

  it('answers a long poll as soon as a message arrives', async () => {
    const url = server.queueUrl(fresh());
    const poll = sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20 }));
    await new Promise((r) => setTimeout(r, 100));
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));
    expect((await poll).Messages?.map((m) => m.Body)).toEqual(['late']);
  });

  it('hides a received message for its visibility timeout, and shows it again when that is set to 0', async () => {
    const url = server.queueUrl(fresh());
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'm' }));
    const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url,
        ReceiptHandle: first.Messages?.[0]?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const second = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }));
    expect(second.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: [{ Id: 'a', ReceiptHandle: second.Messages?.[0]?.ReceiptHandle }],
      }),
    );
    expect(deleted.Successful?.map((s) => s.Id)).toEqual(['a']);
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(attributes.Attributes).toEqual({ ApproximateNumberOfMessages: '0' });
  });

  it('holds a delayed message back until its delay has passed', async () => {
    const url = server.queueUrl(fresh());
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'later', DelaySeconds: 1 }));
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages ?? []).toEqual([]);
    const polled = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 3 }));
    expect(polled.Messages?.map((m) => m.Body)).toEqual(['later']);
  });

  it.each([
    {
      name: 'a body over 256 KiB',
      input: { MessageBody: 'x'.repeat(262_145) },
      error: /shorter than 262144/,
    },
    { name: 'a delay over 900 s', input: { MessageBody: 'x', DelaySeconds: 901 }, error: /DelaySeconds/ },
  ])('refuses $name with the SDK error InvalidParameterValue', async ({ input, error }) => {
    const url = server.queueUrl('q12');
    await expect(sqs.send(new SendMessageCommand({ QueueUrl: url, ...input }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringMatching(error),
    });
  });

  it.each([
    { name: 'eleven entries', entries: 11, bytes: 10, error: 'TooManyEntriesInBatchRequest' },
    { name: 'more than 256 KiB in all', entries: 5, bytes: 60_000, error: 'BatchRequestTooLong' },
  ])('refuses a SendMessageBatch of $name with the SDK error $error', async ({ entries, bytes, error }) => {
    const Entries = Array.from({ length: entries }, (_, i) => ({
      Id: `e${i}`,
      MessageBody: 'x'.repeat(bytes),
    }));
    await expect(
      sqs.send(new SendMessageBatchCommand({ QueueUrl: server.queueUrl('q12'), Entries })),
    ).rejects.toMatchObject({ name: error });
  });

  it('answers QueueDoesNotExist for a queue it does not hold', async () => {
    await expect(
      sqs.send(new SendMessageCommand({ QueueUrl: server.queueUrl('nope'), MessageBody: 'x' })),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });

  it('takes 25 large messages from the queue adapter in calls within the batch limits', async () => {
    const name = fresh();
    const before = server.operations.length;
    const queue = sqsQueue<{ n: number; pad: string }>(sqs, server.queueUrl(name));
    await queue.sendBatch(
      Array.from({ length: 25 }, (_, i) => ({ message: { n: i, pad: 'p'.repeat(60_000) } })),
    );
    const calls = server.operations.slice(before).filter((o) => o === 'SendMessageBatch');
    expect(calls.length).toBeGreaterThanOrEqual(7);
    expect(server.queue(name).attributes().ApproximateNumberOfMessages).toBe('25');
  });

  it('names the entries SQS refused after the queue adapter gave up on them, keeping the others', async () => {
    const name = fresh();
    const queue = sqsQueue<string>(sqs, server.queueUrl(name), { sleep: async () => undefined });
    const big = 'x'.repeat(262_145);
    await expect(queue.sendBatch([{ message: 'a' }, { message: big }, { message: 'c' }])).rejects.toThrow(
      /entry 1 \(BatchRequestTooLong/,
    );
    expect(server.queue(name).attributes().ApproximateNumberOfMessages).toBe('2');
  });

  it('retries only the batch entries SQS reported failed (not a sender fault), then succeeds', async () => {
    const name = fresh();
    const proxy = await startFaultProxy(server.endpoint);
    const client = new SQSClient({
      region: 'local',
      endpoint: proxy.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: awsRequestHandler({ requestTimeoutMs: 5_000 }),
    });
    proxy.inject({
      operation: 'SendMessageBatch',
      fault: {
        answer: (body) => {
          const entries = body.Entries as { Id: string; MessageBody: string }[];
          return {
            Successful: [],
            Failed: entries.map((e) => ({
              Id: e.Id,
              SenderFault: false,
              Code: 'InternalError',
              Message: 'try again',
            })),
          };
        },
      },
    });
    const queue = sqsQueue<string>(client, server.queueUrl(name), { sleep: async () => undefined });
    await queue.sendBatch([{ message: 'a' }, { message: 'b' }]);
    expect(proxy.operations.filter((o) => o === 'SendMessageBatch')).toHaveLength(2);
    expect(server.queue(name).attributes().ApproximateNumberOfMessages).toBe('2');
    client.destroy();
    await proxy.close();
  });
});
