import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lib/http/request.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { Metrics } from '../../../lib/ports.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import {
  type DeliveryChannel,
  handleWebhook,
  type WebhookDeps,
} from '../../../lib/webhook/handle-webhook.js';
import { hmacHex } from './hosts.js';
import { memoryDeliveryStore, memoryQueue } from './support.js';

const SECRET = 'ecr-events-secret-5d41402abc4b2a76';
const DIGEST = `sha256:${'ab12'.repeat(16)}`;
const HEX = 'ab12'.repeat(16);

/** The documented ECR push event, with a full-length digest and a version tag. */
function ecrEvent(detail: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  const sample = JSON.parse(
    readFileSync(new URL('../../fixtures/registry/ecr-image-push.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  return {
    ...sample,
    ...top,
    detail: {
      ...(sample.detail as object),
      'repository-name': 'charts/web',
      'image-digest': DIGEST,
      'image-tag': '1.4.0',
      ...detail,
    },
  };
}

function request(body: string, signature: string | undefined): HttpRequest {
  return {
    method: 'POST',
    path: '/webhooks/ecr',
    query: {},
    pathParameters: { provider: 'ecr' },
    headers: {
      'content-type': 'application/json',
      ...(signature === undefined ? {} : { 'x-signature-256': signature }),
    },
    body: Buffer.from(body),
  };
}

function setup(scope?: WebhookDeps['registryScope']) {
  const deliveries = memoryDeliveryStore();
  const queue = memoryQueue<PushMessage>();
  const counted: { name: string; dimensions: Record<string, string> | undefined }[] = [];
  const metrics = {
    count: (name: string, _value: number, dimensions?: Record<string, string>) => {
      counted.push({ name, dimensions });
    },
    timing: () => undefined,
    flush: () => undefined,
  } as unknown as Metrics;
  const deps: WebhookDeps = {
    secrets: async () => ({ github: [], gitlab: [], ecr: [SECRET] }),
    deliveries,
    queue,
    clock: { now: () => new Date('2026-12-02T12:00:00.000Z') },
    logger: createMemoryLogger(),
    metrics,
    ...(scope === undefined ? {} : { registryScope: scope }),
  };
  const post = async (body: string, signature?: string | null, channel?: DeliveryChannel) => {
    const response = await handleWebhook(
      request(body, signature === null ? undefined : (signature ?? `sha256=${hmacHex(body, SECRET)}`)),
      'ecr',
      deps,
      channel,
    );
    return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
  };
  return { deps, queue, counted, post };
}

describe('POST /webhooks/ecr with an EventBridge ECR Image Action event', () => {
  it('turns a signed push into a registry push keyed by the digest hex, the tag as its ref', async () => {
    const { queue, post } = setup();
    const answer = await post(JSON.stringify(ecrEvent()));
    expect(answer).toEqual({
      status: 202,
      body: { delivery: '13cde686-328b-6117-af20-0e5566167482', rollout: HEX },
    });
    expect(queue.sent).toHaveLength(1);
    const { event } = (queue.sent[0] as { message: PushMessage }).message;
    expect(event).toMatchObject({
      provider: 'ecr',
      deliveryId: '13cde686-328b-6117-af20-0e5566167482',
      after: HEX,
      ref: '1.4.0',
      refType: 'tag',
      refName: '1.4.0',
      repo: {
        fullName: '123456789012.dkr.ecr.us-west-2.amazonaws.com/charts/web',
        webUrl: 'oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/charts/web',
      },
      image: {
        host: '123456789012.dkr.ecr.us-west-2.amazonaws.com',
        repository: 'charts/web',
        tag: '1.4.0',
        digest: DIGEST,
        account: '123456789012',
        region: 'us-west-2',
      },
      changedFiles: { known: true, files: [] },
    });
  });

  it.each([
    ['a wrong signature', `sha256=${'0'.repeat(64)}`],
    ['no signature', null],
    ['a signature made with another secret', `sha256=${hmacHex(JSON.stringify(ecrEvent()), 'other')}`],
  ] as const)('answers 401 to %s and enqueues nothing', async (_name, signature) => {
    const { queue, post } = setup();
    const answer = await post(JSON.stringify(ecrEvent()), signature);
    expect(answer.status).toBe(401);
    expect(queue.sent).toHaveLength(0);
  });

  it.each([
    ['another source', ecrEvent({}, { source: 'aws.s3' })],
    ['another detail-type', ecrEvent({}, { 'detail-type': 'ECR Image Scan' })],
    ['a DELETE action', ecrEvent({ 'action-type': 'DELETE' })],
    ['a failed push', ecrEvent({ result: 'FAILURE' })],
    ['a digest that is not sha256', ecrEvent({ 'image-digest': 'md5:abc' })],
    ['a repository name with a path trick', ecrEvent({ 'repository-name': '../etc' })],
    ['a tag with a space', ecrEvent({ 'image-tag': 'a b' })],
    ['an account that is not 12 digits', ecrEvent({}, { account: '12' })],
    ['no detail', { ...ecrEvent(), detail: undefined }],
    ['no event id', { ...ecrEvent(), id: undefined }],
  ])('answers 400 to a signed body that is not an ECR push: %s', async (_name, body) => {
    const { queue, post } = setup();
    const answer = await post(JSON.stringify(body));
    expect(answer.status).toBe(400);
    expect(queue.sent).toHaveLength(0);
  });

  it('ignores a push by digest alone (no tag): nothing follows it', async () => {
    const { queue, post } = setup();
    const answer = await post(JSON.stringify(ecrEvent({ 'image-tag': undefined })));
    expect(answer.status).toBe(202);
    expect(answer.body.ignored).toMatch(/without a tag/);
    expect(queue.sent).toHaveLength(0);
  });

  it.each([
    ['account', { account: '210987654321', region: 'us-west-2' }],
    ['region', { account: '123456789012', region: 'eu-west-1' }],
  ] as const)('ignores (202) and counts a push of another %s than the deployment', async (reason, scope) => {
    const { queue, counted, post } = setup(scope);
    const answer = await post(JSON.stringify(ecrEvent()));
    expect(answer).toEqual({
      status: 202,
      body: { ignored: `image push of another ${reason} than this deployment's` },
    });
    expect(queue.sent).toHaveLength(0);
    expect(counted).toContainEqual({
      name: 'RegistryEventsIgnored',
      dimensions: { provider: 'ecr', reason },
    });
  });

  it('accepts a push of the deployment account and region', async () => {
    const { queue, post } = setup({ account: '123456789012', region: 'us-west-2' });
    expect((await post(JSON.stringify(ecrEvent()))).status).toBe(202);
    expect(queue.sent).toHaveLength(1);
  });

  it('answers the same event twice, and a second event of the same digest and tag, as one delivery', async () => {
    const { queue, post } = setup();
    const body = JSON.stringify(ecrEvent());
    expect((await post(body)).status).toBe(202);
    expect(await post(body)).toEqual({ status: 200, body: { duplicate: true } });
    const again = JSON.stringify(ecrEvent({}, { id: '99999999-0000-4000-8000-000000000000' }));
    expect(await post(again)).toEqual({ status: 200, body: { duplicate: true } });
    expect(queue.sent).toHaveLength(1);
  });

  it('takes the same digest under another tag as a delivery of its own', async () => {
    const { queue, post } = setup();
    await post(JSON.stringify(ecrEvent()));
    const answer = await post(JSON.stringify(ecrEvent({ 'image-tag': 'stable' }, { id: 'other-event' })));
    expect(answer).toEqual({ status: 202, body: { delivery: 'other-event', rollout: HEX } });
    expect(queue.sent).toHaveLength(2);
  });

  it('processes an event AWS handed over (channel aws) without a signature', async () => {
    const { queue, post } = setup();
    const answer = await post(JSON.stringify(ecrEvent()), null, 'aws');
    expect(answer.status).toBe(202);
    expect(queue.sent).toHaveLength(1);
  });
});
