import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startDynalite } from '../../../infra/local/dynamodb.js';
import { type SqsServer, startSqsServer } from '../../../infra/local/sqs-server.js';
import { type FaultProxy, matchKey, startFaultProxy } from '../../helpers/fault-proxy.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import {
  commitDefaultChange,
  expectDefaultOutcome,
  patchesPerObject,
  resetRequestLogs,
} from './support/default-change.js';

/**
 * The local stack against the SQS-compatible server (SQS_ENDPOINT, QUEUE_URL, TRACK_QUEUE_URL) and
 * dynalite, each behind a fault-injecting proxy: the AWS-side faults a production webhook sees.
 */
describe('the local stack against SQS and DynamoDB doubles with faults', () => {
  let sqs: SqsServer;
  let dynamo: LocalDynamo;
  let sqsProxy: FaultProxy;
  let dynamoProxy: FaultProxy;
  let stack: TestStack;
  beforeAll(async () => {
    sqs = await startSqsServer({
      queues: [
        { name: 'fanout', visibilityTimeoutSeconds: 120, maxReceiveCount: 5 },
        { name: 'track', visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
      ],
    });
    dynamo = await startDynalite();
    sqsProxy = await startFaultProxy(sqs.endpoint);
    dynamoProxy = await startFaultProxy(dynamo.endpoint);
    stack = await startTestStack({
      SQS_ENDPOINT: sqsProxy.endpoint,
      QUEUE_URL: `${sqsProxy.endpoint}/000000000000/fanout`,
      TRACK_QUEUE_URL: `${sqsProxy.endpoint}/000000000000/track`,
      DYNAMODB_ENDPOINT: dynamoProxy.endpoint,
      AWS_REQUEST_TIMEOUT_MS: '500',
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([sqsProxy?.close(), dynamoProxy?.close()]);
    await Promise.all([sqs?.close(), dynamo?.close()]);
  });

  it('sends pushes to the SQS queue and long-polls it into a finished rollout', async () => {
    const { after, delivery } = await commitDefaultChange(stack, 'gh-sqs-1');
    expect(await stack.post('/webhooks/github', delivery)).toMatchObject({ status: 202 });
    expectDefaultOutcome(await stack.rolloutWhenDone(after));
    expect(sqs.operations).toContain('SendMessage');
    expect(sqs.operations).toContain('ReceiveMessage');
    expect(sqs.operations).toContain('DeleteMessageBatch');
    expect(() => stack.queues).toThrow(/SQS_ENDPOINT/);
  }, 60_000);

  it('ends a hung SendMessage with 503, and the redelivery is enqueued and fanned out once', async () => {
    resetRequestLogs(stack);
    const { after, delivery } = await commitDefaultChange(stack, 'gh-sqs-hang');
    const hang = sqsProxy.inject({
      operation: 'SendMessage',
      fault: 'hang',
      times: Number.POSITIVE_INFINITY,
    });
    const hung = await stack.post('/webhooks/github', delivery);
    expect(hung.status).toBe(503);
    expect(hang.hits).toBeGreaterThanOrEqual(1);
    sqsProxy.clear();

    const redelivered = await stack.post('/webhooks/github', delivery);
    expect(redelivered).toMatchObject({ status: 202, body: { rollout: after } });
    expectDefaultOutcome(await stack.rolloutWhenDone(after));
    const patches = [...patchesPerObject(stack).entries()];
    expect(patches.length).toBeGreaterThan(0);
    expect(patches.filter(([, n]) => n !== 1)).toEqual([]);
  }, 60_000);

  it('answers 503 while DynamoDB throttles the delivery write, and the redelivery then succeeds', async () => {
    const { after, delivery } = await commitDefaultChange(stack, 'gh-throttled');
    const throttled = dynamoProxy.inject({
      operation: 'PutItem',
      match: matchKey('DELIVERY#'),
      fault: 'throttling',
      times: Number.POSITIVE_INFINITY,
    });
    const refused = await stack.post('/webhooks/github', delivery);
    expect(refused).toMatchObject({ status: 503, body: { error: 'unavailable' } });
    expect(throttled.hits).toBeGreaterThanOrEqual(2); // the SDK retried before giving up
    dynamoProxy.clear();

    expect(await stack.post('/webhooks/github', delivery)).toMatchObject({ status: 202 });
    expectDefaultOutcome(await stack.rolloutWhenDone(after));
  }, 60_000);

  it('answers 202 when only marking the delivery enqueued fails: the push is on the queue', async () => {
    const { after, delivery } = await commitDefaultChange(stack, 'gh-mark-fails');
    dynamoProxy.inject({
      operation: 'UpdateItem',
      match: matchKey('DELIVERY#'),
      fault: 'provisioned-throughput',
      times: Number.POSITIVE_INFINITY,
    });
    expect(await stack.post('/webhooks/github', delivery)).toMatchObject({ status: 202 });
    dynamoProxy.clear();
    expectDefaultOutcome(await stack.rolloutWhenDone(after));
  }, 60_000);
});
