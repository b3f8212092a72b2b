import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiApp, WebhookApp } from '../../../lib/app.js';
import { NotFoundError } from '../../../lib/errors.js';
import { apiHandler, webhookHandler } from '../../../lib/handlers.js';
import { json } from '../../../lib/http/response.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createEmfMetrics } from '../../../lib/observability/emf-metrics.js';

interface EmfDocument {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

let lines: string[];
beforeEach(() => {
  lines = [];
  // Powertools writes EMF with its own Console on process.stdout: read what reaches the stream.
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.includes('"_aws"')) {
      lines.push(...text.split('\n').filter((l) => l.trim() !== ''));
      return true;
    }
    return write(chunk, ...(rest as []));
  });
});
afterEach(() => vi.restoreAllMocks());

const documents = () => lines.map((l) => JSON.parse(l) as EmfDocument);

describe('the EMF metrics adapter', () => {
  it('writes one EMF line per dimension set, in the GitopsSync namespace, with the dimensions', () => {
    const metrics = createEmfMetrics({ service: 'gitops-sync' });
    metrics.count('Deliveries', 1, { provider: 'github', outcome: 'accepted' });
    metrics.count('Deliveries', 1, { provider: 'github', outcome: 'duplicate' });
    metrics.timing('QueueLag', 1500, { queue: 'fanout' });
    expect(lines).toEqual([]);
    metrics.flush();
    const docs = documents();
    expect(docs).toHaveLength(3);
    for (const doc of docs) expect(doc._aws.CloudWatchMetrics[0]?.Namespace).toBe('GitopsSync');
    const accepted = docs.find((d) => d.outcome === 'accepted');
    expect(accepted).toMatchObject({ Deliveries: 1, provider: 'github', service: 'gitops-sync' });
    expect(accepted?._aws.CloudWatchMetrics[0]?.Dimensions[0]).toEqual(
      expect.arrayContaining(['service', 'provider', 'outcome']),
    );
    const lag = docs.find((d) => d.queue === 'fanout');
    expect(lag?._aws.CloudWatchMetrics[0]?.Metrics).toEqual([{ Name: 'QueueLag', Unit: 'Milliseconds' }]);
    expect(lag?.QueueLag).toBe(1500);
  });

  it('writes nothing when nothing was counted, and each value only once', () => {
    const metrics = createEmfMetrics({ service: 'gitops-sync' });
    metrics.flush();
    expect(lines).toEqual([]);
    metrics.count('MissedWebhooks', 2);
    metrics.flush();
    metrics.flush();
    expect(documents().map((d) => d.MissedWebhooks)).toEqual([2]);
  });
});

describe('the Lambda handlers', () => {
  it('flush the metrics an invocation recorded before answering', async () => {
    const metrics = createEmfMetrics({ service: 'gitops-sync' });
    const app: WebhookApp = {
      logger: createMemoryLogger(),
      metrics,
      maxBodyBytes: 1024,
      webhook: async () => {
        metrics.count('Deliveries', 1, { provider: 'gitlab', outcome: 'ignored' });
        return json(202, { ignored: 'issue' });
      },
    };
    const event = {
      rawPath: '/webhooks/gitlab',
      pathParameters: { provider: 'gitlab' },
      headers: {},
      body: '{}',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST' } },
    } as unknown as APIGatewayProxyEventV2;
    const result = await webhookHandler(async () => app)(event);
    expect(result.statusCode).toBe(202);
    expect(documents()).toEqual([expect.objectContaining({ Deliveries: 1, outcome: 'ignored' })]);
  });

  it('count every read API answer by status, errors included', async () => {
    const metrics = createEmfMetrics({ service: 'gitops-sync' });
    const app: ApiApp = {
      logger: createMemoryLogger(),
      metrics,
      api: async () => {
        throw new NotFoundError('no rollout for that commit');
      },
    };
    const event = {
      rawPath: '/rollouts/abc',
      headers: {},
      isBase64Encoded: false,
      requestContext: { http: { method: 'GET' } },
    } as unknown as APIGatewayProxyEventV2;
    const result = await apiHandler(async () => app)(event);
    expect(result.statusCode).toBe(404);
    expect(documents()).toEqual([expect.objectContaining({ ApiRequests: 1, status: '404' })]);
  });
});
