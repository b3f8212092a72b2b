import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromApiGatewayEvent, type HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import { handleWebhook, type WebhookDeps } from '../../../lib/webhook/handle-webhook.js';
import { githubPayloads, gitlabFixture, memoryDeliveryStore, memoryQueue, signGitHub } from './support.js';

const GH_SECRET = 'gh-secret-d41d8cd98f00b204';
const GL_TOKEN = 'gl-token-9e107d9d372bb682';
const NOW = new Date('2025-03-04T12:00:00.000Z');
const push = githubPayloads.branchPush([{ modified: ['apps/web/values.yaml'] }]);
const pushBody = JSON.stringify(push);

function setup(overrides: Partial<WebhookDeps> = {}) {
  const deliveries = memoryDeliveryStore();
  const queue = memoryQueue<PushMessage>();
  const logger = createMemoryLogger();
  let secretReads = 0;
  const deps: WebhookDeps = {
    secrets: async () => {
      secretReads += 1;
      return { github: [GH_SECRET], gitlab: [GL_TOKEN] };
    },
    deliveries,
    queue,
    clock: { now: () => NOW },
    logger,
    ...overrides,
  };
  return { deps, deliveries, queue, logger, secretReads: () => secretReads };
}

function githubRequest(
  body: string = pushBody,
  headers: Record<string, string> = {},
  method = 'POST',
): HttpRequest {
  return {
    method,
    path: '/webhooks/github',
    query: {},
    pathParameters: { provider: 'github' },
    body: Buffer.from(body),
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': 'delivery-1',
      'x-hub-signature-256': signGitHub(body, GH_SECRET),
      ...headers,
    },
  };
}

function apiGatewayEvent(body: string, headers: Record<string, string>, isBase64Encoded: boolean) {
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: 'POST /webhooks/{provider}',
    rawPath: '/webhooks/github',
    rawQueryString: '',
    headers,
    pathParameters: { provider: 'github' },
    isBase64Encoded,
    body,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'example.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'example',
      http: {
        method: 'POST',
        path: '/webhooks/github',
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.1',
        userAgent: 'GitHub-Hookshot/1',
      },
      requestId: 'req-1',
      routeKey: 'POST /webhooks/{provider}',
      stage: '$default',
      time: '04/Mar/2025:12:00:00 +0000',
      timeEpoch: NOW.getTime(),
    },
  };
  return event;
}

function expectNoSecretLogged(logger: ReturnType<typeof createMemoryLogger>, ...values: string[]) {
  const logged = JSON.stringify(logger.lines);
  for (const value of [GH_SECRET, GL_TOKEN, ...values]) expect(logged).not.toContain(value);
}

describe('handleWebhook', () => {
  it('accepts a signed push: records it once, enqueues it, answers 202 with the delivery and rollout', async () => {
    const { deps, deliveries, queue, logger } = setup();
    const response = await handleWebhook(githubRequest(), 'github', deps);
    expect(response.statusCode).toBe(202);
    expect(JSON.parse(response.body)).toEqual({ delivery: 'delivery-1', rollout: push.after });
    expect([...deliveries.records.values()]).toEqual([
      {
        provider: 'github',
        deliveryId: 'delivery-1',
        event: 'push',
        repo: 'https://github.com/Codertocat/Hello-World',
        ref: 'refs/heads/master',
        sha: push.after,
        receivedAt: NOW.toISOString(),
      },
    ]);
    expect(queue.sent).toHaveLength(1);
    expect(queue.sent[0]?.message).toMatchObject({
      type: 'push',
      trigger: 'webhook',
      event: {
        deliveryId: 'delivery-1',
        after: push.after,
        changedFiles: { known: true, files: ['apps/web/values.yaml'] },
      },
    });
    expectNoSecretLogged(logger, signGitHub(pushBody, GH_SECRET));
  });

  it('answers a redelivery 200 duplicate and enqueues nothing twice', async () => {
    const { deps, queue } = setup();
    await handleWebhook(githubRequest(), 'github', deps);
    const again = await handleWebhook(githubRequest(), 'github', deps);
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ duplicate: true });
    expect(queue.sent).toHaveLength(1);
  });

  it.each([
    ['a wrong signature', { 'x-hub-signature-256': signGitHub(pushBody, 'guessed') }, 'signature-mismatch'],
    ['no signature', { 'x-hub-signature-256': '' }, 'signature-missing'],
    [
      'only a SHA-1 signature',
      { 'x-hub-signature-256': '', 'x-hub-signature': `sha1=${'c'.repeat(40)}` },
      'signature-sha1-only',
    ],
  ])(
    'answers 401 to %s, records nothing and logs a security line without secrets',
    async (_name, headers, reason) => {
      const { deps, deliveries, queue, logger } = setup();
      const request = githubRequest(pushBody, headers);
      const response = await handleWebhook(request, 'github', deps);
      expect(response.statusCode).toBe(401);
      expect(deliveries.records.size).toBe(0);
      expect(queue.sent).toHaveLength(0);
      expect(logger.lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          fields: expect.objectContaining({ security: 'high', metric: 'webhook_unauthorized', reason }),
        }),
      );
      expect(response.body).not.toContain(reason);
      expectNoSecretLogged(logger, request.headers['x-hub-signature-256'] || 'sha256=');
    },
  );

  it('answers 401 to a GitLab delivery with a wrong token and never logs the token it was sent', async () => {
    const { deps, deliveries, logger } = setup();
    const sentToken = 'attacker-token-5f4dcc3b5aa7';
    const response = await handleWebhook(
      {
        ...githubRequest(JSON.stringify(gitlabFixture('push'))),
        path: '/webhooks/gitlab',
        headers: { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': sentToken },
      },
      'gitlab',
      deps,
    );
    expect(response.statusCode).toBe(401);
    expect(deliveries.records.size).toBe(0);
    expectNoSecretLogged(logger, sentToken);
  });

  it('forgets the record and answers 503 when enqueueing fails, so the retry is processed', async () => {
    const { deps, deliveries, queue, logger } = setup();
    queue.fail = true;
    const failed = await handleWebhook(githubRequest(), 'github', deps);
    expect(failed.statusCode).toBe(503);
    expect(deliveries.forgotten).toEqual(['github#delivery-1']);
    expect(deliveries.records.size).toBe(0);
    queue.fail = false;
    const retried = await handleWebhook(githubRequest(), 'github', deps);
    expect(retried.statusCode).toBe(202);
    expect(queue.sent).toHaveLength(1);
    expectNoSecretLogged(logger);
  });

  it('answers 503 and enqueues nothing when the delivery store fails', async () => {
    const { deps, deliveries, queue } = setup();
    deliveries.failRecord = true;
    const response = await handleWebhook(githubRequest(), 'github', deps);
    expect(response.statusCode).toBe(503);
    expect(queue.sent).toHaveLength(0);
  });

  it('answers 503 when the webhook secrets cannot be read, logging no value', async () => {
    const { deps, logger } = setup({
      secrets: async () => {
        throw new Error('AccessDeniedException');
      },
    });
    const response = await handleWebhook(githubRequest(), 'github', deps);
    expect(response.statusCode).toBe(503);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'webhook secrets unavailable' }),
    );
  });

  it('verifies a base64-encoded API Gateway body exactly as the plain one', async () => {
    const { deps, queue } = setup();
    const headers = {
      'Content-Type': 'application/json',
      'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': 'delivery-b64',
      'X-Hub-Signature-256': signGitHub(pushBody, GH_SECRET),
    };
    const event = apiGatewayEvent(Buffer.from(pushBody).toString('base64'), headers, true);
    const response = await handleWebhook(fromApiGatewayEvent(event, 1024 * 1024), 'github', deps);
    expect(response.statusCode).toBe(202);
    expect(queue.sent[0]?.message.event.deliveryId).toBe('delivery-b64');
  });

  it.each([
    [
      'a ping',
      githubRequest(JSON.stringify(githubPayloads.ping()), {}),
      'ping',
      200,
      { ok: true, event: 'ping' },
    ],
    [
      'an event it does not handle',
      githubRequest('{"action":"opened"}'),
      'issues',
      202,
      { ignored: 'event "issues" is not handled' },
    ],
    [
      'a branch deletion',
      githubRequest(JSON.stringify(githubPayloads.tagDeleted())),
      'push',
      202,
      { ignored: 'ref deleted' },
    ],
  ])('answers %s without recording or enqueueing', async (_name, base, event, status, body) => {
    const { deps, deliveries, queue } = setup();
    const raw = base.body.toString();
    const request = {
      ...base,
      headers: {
        ...base.headers,
        'x-github-event': event,
        'x-hub-signature-256': signGitHub(raw, GH_SECRET),
      },
    };
    const response = await handleWebhook(request, 'github', deps);
    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body)).toEqual(body);
    expect(deliveries.records.size).toBe(0);
    expect(queue.sent).toHaveLength(0);
  });

  it.each([
    ['malformed JSON', githubRequest('{"ref":'), 400],
    ['a push without repository', githubRequest(JSON.stringify({ ...push, repository: undefined })), 400],
    ['a missing delivery header', githubRequest(pushBody, { 'x-github-delivery': '' }), 400],
  ])('answers 400 to %s and records nothing', async (_name, request, status) => {
    const { deps, deliveries, logger } = setup();
    const response = await handleWebhook(request, 'github', deps);
    expect(response.statusCode).toBe(status);
    expect(deliveries.records.size).toBe(0);
    expectNoSecretLogged(logger);
  });

  it('answers 405 to anything but POST', async () => {
    const { deps } = setup();
    const response = await handleWebhook(githubRequest(pushBody, {}, 'GET'), 'github', deps);
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });

  it('answers 413 to an oversize body it is handed, without reading secrets', async () => {
    const { deps, secretReads } = setup({ maxBodyBytes: 1024 });
    const response = await handleWebhook(githubRequest('x'.repeat(2048)), 'github', deps);
    expect(response.statusCode).toBe(413);
    expect(secretReads()).toBe(0);
  });

  it('answers 400 to an unknown provider without reading secrets', async () => {
    const { deps, secretReads } = setup();
    const response = await handleWebhook(githubRequest(), 'bitbucket-cloud', deps);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'unknown-provider' });
    expect(secretReads()).toBe(0);
  });

  it('accepts a GitLab push with the right token', async () => {
    const { deps, queue, logger } = setup();
    const body = JSON.stringify(gitlabFixture('push'));
    const request: HttpRequest = {
      ...githubRequest(body),
      path: '/webhooks/gitlab',
      headers: { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': GL_TOKEN, 'x-gitlab-event-uuid': 'evt-1' },
    };
    const response = await handleWebhook(request, 'gitlab', deps);
    expect(response.statusCode).toBe(202);
    expect(JSON.parse(response.body)).toEqual({
      delivery: 'evt-1',
      rollout: '9d8c7b6a5f4e3d2c1b0a99887766554433221100',
    });
    expect(queue.sent[0]?.options).toEqual({ deduplicationId: 'gitlab:evt-1' });
    expectNoSecretLogged(logger);
  });
});
