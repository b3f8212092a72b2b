import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { createWebhookApp } from '../../../lib/composition/runtime-webhook.js';
import { loadConfig } from '../../../lib/config.js';
import { webhookHandler } from '../../../lib/handlers.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

/**
 * The webhook function's own composition (DynamoDB through dynalite, the fanout queue in process) invoked
 * as Lambda is: by an EventBridge rule with the ECR event itself, and by API Gateway with a request.
 */
const ACCOUNT = '123456789012';
const HEX = '5e'.repeat(32);
const VALID = 'clusters:\n  - name: hub\n    server: https://hub.example\n    auth: { tokenSecret: hub }\n';

const ecrEvent = (id: string, account = ACCOUNT) => ({
  version: '0',
  id,
  'detail-type': 'ECR Image Action',
  source: 'aws.ecr',
  account,
  time: '2026-12-02T12:00:00Z',
  region: 'eu-west-1',
  resources: [],
  detail: {
    result: 'SUCCESS',
    'repository-name': 'charts/web',
    'image-digest': `sha256:${HEX}`,
    'action-type': 'PUSH',
    'image-tag': '1.4.0',
  },
});

let table: TestTable;
let dir: string;
let queue: MemoryQueue<PushMessage>;
let handler: ReturnType<typeof webhookHandler>;

beforeAll(async () => {
  table = await startTestTable();
  dir = await mkdtemp(join(tmpdir(), 'webhook-eventbridge-'));
  const fleet = join(dir, 'fleet.yaml');
  await writeFile(fleet, VALID);
  queue = new MemoryQueue<PushMessage>('fanout');
  const app = createWebhookApp(
    loadConfig({
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      FLEET_CONFIG: fleet,
      ECR_EVENTS_SECRET: 'http-route-secret',
      ECR_EVENTS_ACCOUNT: ACCOUNT,
      ECR_EVENTS_REGION: 'eu-west-1',
    }),
    { logger: createMemoryLogger(), pushQueue: queue },
  );
  handler = webhookHandler(async () => app);
}, 30_000);

afterAll(async () => {
  await table.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the webhook function and an EventBridge ECR event', () => {
  it('records and enqueues the push without a signature, with trigger registry, keyed by the digest', async () => {
    const result = await handler(ecrEvent('eb-1') as never);
    expect(result.statusCode).toBe(202);
    expect(JSON.parse(result.body ?? '')).toEqual({ delivery: 'eb-1', rollout: HEX });
    const [message, ...more] = queue.takeAll();
    expect(more).toEqual([]);
    expect(message).toMatchObject({ type: 'push', trigger: 'registry', event: { after: HEX, ref: '1.4.0' } });
  });

  it('answers a second event of the same image as a duplicate (recorded in DynamoDB), enqueueing nothing', async () => {
    const result = await handler(ecrEvent('eb-2') as never);
    expect(result.statusCode).toBe(200);
    expect(queue.takeAll()).toEqual([]);
  });

  it('ignores an event of another account than the deployment', async () => {
    const result = await handler(ecrEvent('eb-3', '210987654321') as never);
    expect(result.statusCode).toBe(202);
    expect(JSON.parse(result.body ?? '')).toMatchObject({ ignored: expect.stringContaining('account') });
    expect(queue.takeAll()).toEqual([]);
  });

  it('refuses (401) the same event sent over HTTP without a signature: only AWS may skip it', async () => {
    const request = {
      version: '2.0',
      routeKey: 'POST /webhooks/{provider}',
      rawPath: '/webhooks/ecr',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      pathParameters: { provider: 'ecr' },
      requestContext: { http: { method: 'POST' } },
      body: JSON.stringify(ecrEvent('eb-4')),
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const result = await handler(request);
    expect(result.statusCode).toBe(401);
    expect(queue.takeAll()).toEqual([]);
  });
});
