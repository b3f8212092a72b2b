import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamo, startDynalite } from '../../../infra/local/dynamodb.js';
import { type SqsServer, startSqsServer } from '../../../infra/local/sqs-server.js';
import { type FaultProxy, matchKey, startFaultProxy } from '../../helpers/fault-proxy.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitDefaultChange, expectDefaultOutcome } from './support/default-change.js';

/** GitHub and GitLab wait about 10 s; the webhook must answer before that, with a margin. */
const GIT_HOST_WAIT_MARGIN_MS = 8_000;

/**
 * Issue 21: with the SDK's defaults (3 tries) and our 5 s request timeout, one hung AWS call held the
 * webhook for 15 s, past GitHub's 10 s. The stack runs here with the production timeouts (no
 * AWS_REQUEST_TIMEOUT_MS), its SQS and DynamoDB behind fault proxies.
 */
describe('the webhook against hung SQS and DynamoDB endpoints', () => {
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
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([sqsProxy?.close(), dynamoProxy?.close()]);
    await Promise.all([sqs?.close(), dynamo?.close()]);
  });

  async function post(delivery: { headers: Record<string, string>; body: string }) {
    const started = Date.now();
    const response = await fetch(`${stack.url}/webhooks/github`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    const body = (await response.json()) as Record<string, unknown>;
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body,
      ms: Date.now() - started,
    };
  }

  it('answers 503 with Retry-After before the Git host gives up when SendMessage hangs', async () => {
    const { after, delivery } = await commitDefaultChange(stack, 'gh-hung-sqs');
    sqsProxy.inject({ operation: 'SendMessage', fault: 'hang', times: Number.POSITIVE_INFINITY });
    const hung = await post(delivery);
    sqsProxy.clear();
    expect(hung.status).toBe(503);
    expect(Number(hung.retryAfter)).toBeGreaterThan(0);
    // The Git host's contract, not a speed measurement: a later answer is a lost delivery.
    expect(hung.ms).toBeLessThan(GIT_HOST_WAIT_MARGIN_MS);

    // Nothing was enqueued: the redelivery is, and it fans out.
    const again = await post(delivery);
    expect(again).toMatchObject({ status: 202, body: { rollout: after } });
    expectDefaultOutcome(await stack.rolloutWhenDone(after));
  }, 60_000);

  it('answers 503 in time when the delivery record is slow and then SendMessage hangs', async () => {
    const { delivery } = await commitDefaultChange(stack, 'gh-hung-both');
    // The delivery claim's first try hangs (the SDK tries again), then every send hangs.
    dynamoProxy.inject({ operation: 'PutItem', match: matchKey('DELIVERY#'), fault: 'hang', times: 1 });
    sqsProxy.inject({ operation: 'SendMessage', fault: 'hang', times: Number.POSITIVE_INFINITY });
    const hung = await post(delivery);
    sqsProxy.clear();
    dynamoProxy.clear();
    expect(hung.status).toBe(503);
    expect(hung.retryAfter).not.toBeNull();
    expect(hung.ms).toBeLessThan(GIT_HOST_WAIT_MARGIN_MS);
  }, 60_000);

  it('answers 503 in time when DynamoDB hangs on every delivery write', async () => {
    const { delivery } = await commitDefaultChange(stack, 'gh-hung-dynamo');
    dynamoProxy.inject({
      operation: 'PutItem',
      match: matchKey('DELIVERY#'),
      fault: 'hang',
      times: Number.POSITIVE_INFINITY,
    });
    const hung = await post(delivery);
    dynamoProxy.clear();
    expect(hung.status).toBe(503);
    expect(hung.ms).toBeLessThan(GIT_HOST_WAIT_MARGIN_MS);
  }, 60_000);
});
