import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import { handleWebhook, type WebhookDeps } from '../../../lib/webhook/handle-webhook.js';
import { githubPayloads, memoryDeliveryStore, memoryQueue, signGitHub } from './support.js';

const SECRET = 'gh-secret-5d41402abc4b2a76';
const body = JSON.stringify(githubPayloads.branchPush([{ modified: ['apps/web/values.yaml'] }]));
const request: HttpRequest = {
  method: 'POST',
  path: '/webhooks/github',
  query: {},
  pathParameters: { provider: 'github' },
  body: Buffer.from(body),
  headers: {
    'content-type': 'application/json',
    'x-github-event': 'push',
    'x-github-delivery': 'delivery-budget',
    'x-hub-signature-256': signGitHub(body, SECRET),
  },
};

const never = () => new Promise<never>(() => undefined);

function deps(overrides: Partial<WebhookDeps>): WebhookDeps {
  return {
    secrets: async () => ({ github: [SECRET], gitlab: [] }),
    deliveries: memoryDeliveryStore(),
    queue: memoryQueue<PushMessage>(),
    clock: { now: () => new Date('2026-12-02T10:00:00.000Z') },
    logger: createMemoryLogger(),
    budgetMs: 200,
    ...overrides,
  };
}

describe('the webhook time budget', () => {
  it('answers 503 with Retry-After, not 202, when the send is still in flight at the budget', async () => {
    const queue = { send: never, sendBatch: never };
    const response = await handleWebhook(request, 'github', deps({ queue }));
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('30');
  });

  it('answers 503 when the delivery store never answers', async () => {
    const store = memoryDeliveryStore();
    const response = await handleWebhook(request, 'github', deps({ deliveries: { ...store, claim: never } }));
    expect(response.statusCode).toBe(503);
  });

  it('answers 503 when the webhook secrets never arrive', async () => {
    const response = await handleWebhook(request, 'github', deps({ secrets: never }));
    expect(response.statusCode).toBe(503);
  });

  it('answers 202 when everything answers within the budget', async () => {
    const response = await handleWebhook(request, 'github', deps({ budgetMs: 5_000 }));
    expect(response.statusCode).toBe(202);
  });
});
