import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { MetricDimensions, Metrics } from '../../../lib/ports.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import { handleWebhook, type WebhookDeps } from '../../../lib/webhook/handle-webhook.js';
import { githubPayloads, memoryDeliveryStore, memoryQueue, signGitHub } from './support.js';

const SECRET = 'gh-secret-metrics-0001';
const body = JSON.stringify(githubPayloads.branchPush([{ modified: ['apps/web/values.yaml'] }]));

function recordingMetrics(): Metrics & {
  counted: { name: string; value: number; dims: MetricDimensions }[];
} {
  const counted: { name: string; value: number; dims: MetricDimensions }[] = [];
  return {
    counted,
    count: (name, value = 1, dims = {}) => counted.push({ name, value, dims }),
    timing: () => undefined,
    flush: () => undefined,
  };
}

function request(payload: string, headers: Record<string, string> = {}): HttpRequest {
  return {
    method: 'POST',
    path: '/webhooks/github',
    query: {},
    pathParameters: { provider: 'github' },
    body: Buffer.from(payload),
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': 'delivery-1',
      'x-hub-signature-256': signGitHub(payload, SECRET),
      ...headers,
    },
  };
}

function deps(overrides: Partial<WebhookDeps> = {}) {
  const metrics = recordingMetrics();
  const logger = createMemoryLogger();
  const value: WebhookDeps = {
    secrets: async () => ({ github: [SECRET], gitlab: [] }),
    deliveries: memoryDeliveryStore(),
    queue: memoryQueue<PushMessage>(),
    clock: { now: () => new Date('2026-12-01T00:00:00Z') },
    logger,
    metrics,
    ...overrides,
  };
  return { value, metrics, logger };
}

const failingQueue = { send: () => Promise.reject(new Error('sqs down')) };

describe('Deliveries by outcome', () => {
  it.each([
    ['a verified push is accepted', () => request(body), {}, 'accepted'],
    [
      'a wrong signature is unauthorized',
      () => request(body, { 'x-hub-signature-256': 'sha256=00' }),
      {},
      'unauthorized',
    ],
    ['another event is ignored', () => request('{}', { 'x-github-event': 'issues' }), {}, 'ignored'],
    ['a body that is not a push is rejected', () => request('{"ref": 5}'), {}, 'rejected'],
    ['an enqueue failure is unavailable', () => request(body), { queue: failingQueue }, 'unavailable'],
  ] as const)('%s', async (_name, make, overrides, outcome) => {
    const { value, metrics } = deps(overrides as Partial<WebhookDeps>);
    await handleWebhook(make(), 'github', value);
    expect(metrics.counted).toEqual([
      { name: 'Deliveries', value: 1, dims: { provider: 'github', outcome } },
    ]);
  });

  it('counts a redelivery as duplicate', async () => {
    const { value, metrics } = deps();
    await handleWebhook(request(body), 'github', value);
    await handleWebhook(request(body), 'github', value);
    expect(metrics.counted.map((c) => c.dims.outcome)).toEqual(['accepted', 'duplicate']);
  });

  it('logs why a delivery was rejected under `reason`, which Powertools keeps', async () => {
    const { value, logger } = deps();
    await handleWebhook(request('{"ref": 5}'), 'github', value);
    const line = logger.lines.find((l) => l.message === 'webhook rejected');
    expect(line?.fields).toMatchObject({ status: 400, provider: 'github' });
    expect(typeof line?.fields.reason).toBe('string');
    expect(line?.fields).not.toHaveProperty('message');
  });
});
