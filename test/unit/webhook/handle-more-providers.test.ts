import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import { handleWebhook, type WebhookDeps } from '../../../lib/webhook/handle-webhook.js';
import { ALL_SECRETS, hostFixture, type SignedDelivery, sign } from './hosts.js';
import { memoryDeliveryStore, memoryQueue } from './support.js';

function setup() {
  const deliveries = memoryDeliveryStore();
  const queue = memoryQueue<PushMessage>();
  const deps: WebhookDeps = {
    secrets: async () => ALL_SECRETS,
    deliveries,
    queue,
    clock: { now: () => new Date('2025-03-04T12:00:00.000Z') },
    logger: createMemoryLogger(),
    maxBodyBytes: 64 * 1024,
  };
  return { deps, deliveries, queue };
}

function request(delivery: SignedDelivery): HttpRequest {
  return {
    method: 'POST',
    path: `/webhooks/${delivery.provider}`,
    query: {},
    pathParameters: { provider: delivery.provider },
    headers: delivery.headers,
    body: Buffer.from(delivery.body),
  };
}

/** Azure's sample with two more ref updates: a new feature branch and a deleted tag. */
function azureThreeRefs(): string {
  const payload = hostFixture('azuredevops-git-push');
  const resource = payload.resource as { refUpdates: unknown[] };
  resource.refUpdates = [
    ...resource.refUpdates,
    { name: 'refs/heads/feature', oldObjectId: 'a'.repeat(40), newObjectId: 'b'.repeat(40) },
    { name: 'refs/tags/old', oldObjectId: 'c'.repeat(40), newObjectId: '0'.repeat(40) },
  ];
  return JSON.stringify(payload);
}

const answer = (response: { statusCode: number; body: string }) => ({
  status: response.statusCode,
  body: JSON.parse(response.body) as unknown,
});

describe('handleWebhook with a delivery that moved several refs', () => {
  it('records and enqueues one push per ref under derived ids, and answers with every rollout', async () => {
    const { deps, deliveries, queue } = setup();
    const response = await handleWebhook(request(sign.azure(azureThreeRefs())), 'azure-devops', deps);
    const id = '09b0b950-47fa-4f45-8b65-5a22686314f8';
    expect(answer(response)).toEqual({
      status: 202,
      body: {
        delivery: id,
        rollout: '298a79aa1552799a70718a0ee914d153d5a1a76b',
        rollouts: [
          { delivery: `${id}:1`, rollout: '298a79aa1552799a70718a0ee914d153d5a1a76b' },
          { delivery: `${id}:2`, rollout: 'b'.repeat(40) },
        ],
      },
    });
    expect([...deliveries.records.keys()]).toEqual([`azure-devops#${id}:1`, `azure-devops#${id}:2`]);
    expect(queue.sent.map((s) => [s.message.event.ref, s.options?.deduplicationId])).toEqual([
      ['refs/heads/master', `azure-devops:${id}:1`],
      ['refs/heads/feature', `azure-devops:${id}:2`],
    ]);
  });

  it('answers a redelivery of the same body 200 duplicate and enqueues nothing more', async () => {
    const { deps, queue } = setup();
    await handleWebhook(request(sign.azure(azureThreeRefs())), 'azure-devops', deps);
    const again = await handleWebhook(request(sign.azure(azureThreeRefs())), 'azure-devops', deps);
    expect(answer(again)).toEqual({ status: 200, body: { duplicate: true } });
    expect(queue.sent).toHaveLength(2);
  });

  it('answers 503 when one ref cannot be enqueued, and the redelivery enqueues only that one', async () => {
    const { deps, queue } = setup();
    const send = queue.send.bind(queue);
    let calls = 0;
    queue.send = async (message, options) => {
      calls += 1;
      if (calls === 2) throw new Error('sqs unavailable');
      return send(message, options);
    };
    const first = await handleWebhook(request(sign.azure(azureThreeRefs())), 'azure-devops', deps);
    expect(first.statusCode).toBe(503);
    const retry = await handleWebhook(request(sign.azure(azureThreeRefs())), 'azure-devops', deps);
    expect(answer(retry)).toMatchObject({
      status: 202,
      body: { duplicates: 1, rollouts: [{ rollout: 'b'.repeat(40) }] },
    });
    expect(queue.sent.map((s) => s.message.event.ref)).toEqual(['refs/heads/master', 'refs/heads/feature']);
  });

  it('keeps the plain delivery id when the payload changed one ref', async () => {
    const { deps, queue } = setup();
    const response = await handleWebhook(
      request(sign.bitbucket(JSON.stringify(hostFixture('bitbucket-repo-push')), 'u-1')),
      'bitbucket',
      deps,
    );
    expect(answer(response)).toMatchObject({ status: 202, body: { delivery: 'u-1' } });
    expect(queue.sent.map((s) => s.options?.deduplicationId)).toEqual(['bitbucket:u-1']);
  });
});

describe('handleWebhook bad input from the further providers', () => {
  const body = JSON.stringify(hostFixture('bitbucket-server-refs-changed'));
  it.each<[string, SignedDelivery, number]>([
    ['a wrong signature', { ...sign.bitbucketServer(body), body: body.replace('master', 'main') }, 401],
    ['a malformed body', sign.bitbucketServer('{"changes": 3, "repository": {}}'), 400],
    ['a body over the size limit', sign.bitbucketServer(' '.repeat(70 * 1024)), 413],
    ['a ping', sign.bitbucketServer('{"test": true}', 'p-1', 'diagnostics:ping'), 200],
    ['an event it does not handle', sign.bitbucketServer('{}', 'x', 'repo:comment:added'), 202],
  ])('answers %s with %i, recording and enqueueing nothing', async (_name, delivery, status) => {
    const { deps, deliveries, queue } = setup();
    const response = await handleWebhook(request(delivery), 'bitbucket-server', deps);
    expect(response.statusCode).toBe(status);
    expect(deliveries.records.size).toBe(0);
    expect(queue.sent).toHaveLength(0);
  });
});
