import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { WebhookApp } from '../../../lib/app.js';
import { webhookHandler } from '../../../lib/handlers.js';
import type { HttpRequest } from '../../../lib/http/request.js';
import { json } from '../../../lib/http/response.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { DeliveryChannel } from '../../../lib/webhook/handle-webhook.js';

const ecrEvent = {
  version: '0',
  id: '13cde686-328b-6117-af20-0e5566167482',
  'detail-type': 'ECR Image Action',
  source: 'aws.ecr',
  account: '123456789012',
  time: '2026-12-02T12:00:00Z',
  region: 'eu-west-1',
  resources: [],
  detail: { result: 'SUCCESS', 'action-type': 'PUSH', 'repository-name': 'web', 'image-tag': '1.0.0' },
};

/** A fake webhook App recording how it was called and answering `status`. */
function app(status = 202) {
  const calls: { request: HttpRequest; provider: string; channel: DeliveryChannel | undefined }[] = [];
  const instance: WebhookApp = {
    logger: createMemoryLogger(),
    maxBodyBytes: 1024 * 1024,
    webhook: async (request, provider, channel) => {
      calls.push({ request, provider, channel });
      return json(status, status < 300 ? { delivery: 'd', rollout: 'r' } : { error: 'x' });
    },
  };
  return { calls, handler: webhookHandler(async () => instance) };
}

describe('the webhook function invoked by an EventBridge rule', () => {
  it('takes an ECR event as POST /webhooks/ecr over the aws channel (no signature), the event as the body', async () => {
    const { calls, handler } = app();
    const result = await handler(ecrEvent as never);
    expect(result.statusCode).toBe(202);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.provider).toBe('ecr');
    expect(call?.channel).toBe('aws');
    expect(JSON.parse(call?.request.body.toString('utf8') ?? '')).toEqual(ecrEvent);
  });

  it('throws on our own failure (5xx), so Lambda retries the asynchronous invocation', async () => {
    const { handler } = app(503);
    await expect(handler(ecrEvent as never)).rejects.toThrow(/retried by Lambda/);
  });

  it('drops an event of a source it has no route for, without calling the App', async () => {
    const { calls, handler } = app();
    const result = await handler({ ...ecrEvent, source: 'aws.s3' } as never);
    expect(result.statusCode).toBe(202);
    expect(calls).toHaveLength(0);
  });

  it('keeps an API Gateway request on the http channel, even one whose body looks like an EventBridge event', async () => {
    const { calls, handler } = app();
    const request: APIGatewayProxyEventV2 = {
      version: '2.0',
      routeKey: 'POST /webhooks/{provider}',
      rawPath: '/webhooks/ecr',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      pathParameters: { provider: 'ecr' },
      requestContext: { http: { method: 'POST' } } as never,
      body: JSON.stringify(ecrEvent),
      isBase64Encoded: false,
    };
    await handler(request);
    expect(calls[0]?.channel).toBeUndefined();
    expect(calls[0]?.provider).toBe('ecr');
  });
});
