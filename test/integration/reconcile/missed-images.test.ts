import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalEcr, memoryEcrState, startLocalEcr } from '../../../infra/local/ecr-server.js';
import { MemoryQueue } from '../../../infra/local/memory-queue.js';
import { createEcrImages } from '../../../lib/aws/ecr-images.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import { catchUpImages, type MissedImageDeps } from '../../../lib/reconcile/missed-images.js';
import type { RegistrySource } from '../../../lib/reconcile/registry-sources.js';
import { dynamoDeliveryStore } from '../../../lib/store/deliveries.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutExistence } from '../../../lib/store/reconcile-memory.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

const ACCOUNT = '123456789012';
const HOST = `${ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com`;
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const source = (name: string, path: string, targetRevision = '^1.0.0'): RegistrySource => ({
  cluster: 'hub',
  namespace: 'argocd',
  name,
  source: 0,
  imageKey: `${HOST}/${path}`,
  targetRevision,
  helm: false,
  synced: digest(1),
});

/** The ECR catch-up's runner against the ECR double, dynalite's delivery records and an SQS-like queue. */
describe('catchUpImages', () => {
  let ecr: LocalEcr;
  let table: TestTable;
  const state = memoryEcrState();
  const hourAgo = Date.now() - 3_600_000;
  beforeAll(async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    state.push(ACCOUNT, 'charts/web', { digest: digest(1), tag: '1.3.0', pushedAt: hourAgo });
    state.push(ACCOUNT, 'charts/web', { digest: digest(2), tag: '1.4.0', pushedAt: hourAgo });
    state.push(ACCOUNT, 'charts/fresh', { digest: digest(3), tag: '1.0.1' });
    state.push(ACCOUNT, 'charts/secret', { digest: digest(4), tag: '1.0.1' });
    ecr = await startLocalEcr({
      state,
      accountId: ACCOUNT,
      deniedRepositories: [`${ACCOUNT}/charts/secret`],
    });
    table = await startTestTable();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await ecr?.close();
    await table?.close();
  });

  const deps = (over: Partial<MissedImageDeps> = {}) => {
    const ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
    const queue = new MemoryQueue<PushMessage>('push');
    const logger = createMemoryLogger();
    const d: MissedImageDeps = {
      images: createEcrImages({ endpoint: ecr.endpoint }),
      rollouts: dynamoRolloutExistence(ref),
      deliveries: dynamoDeliveryStore(ref, 3600),
      pushQueue: queue,
      clock: { now: () => new Date() },
      logger,
      graceMs: 120_000,
      deadline: Date.now() + 20_000,
      repositoryArns: [`arn:aws:ecr:eu-west-1:${ACCOUNT}:repository/charts/*`],
      maxRepositories: 50,
      ...over,
    };
    return { d, queue, logger };
  };
  const sources = [
    source('web', 'charts/web'),
    source('fresh', 'charts/fresh'),
    source('gone', 'charts/gone'),
    source('secret', 'charts/secret'),
    source('outside', 'apps/outside'),
  ];

  it('skips (never fails on) a missing or denied repository, waits out a fresh push and enqueues the rest once', async () => {
    const { d, queue, logger } = deps();
    const report = await catchUpImages(sources, d);
    expect(report.skipped.map((s) => [s.repository, s.reason])).toEqual([
      [`${HOST}/charts/gone`, 'not-found'],
      [`${HOST}/charts/secret`, 'access-denied'],
    ]);
    expect(report).toMatchObject({ described: 2, notConfigured: 1, deferred: 0, truncated: [] });
    expect(report.images.map((i) => [i.repository, i.tag, i.action])).toEqual([
      [`${HOST}/charts/fresh`, '1.0.1', 'waiting'],
      [`${HOST}/charts/web`, '1.4.0', 'enqueued'],
    ]);
    expect(queue.depth).toBe(1);
    expect(logger.lines.filter((l) => l.message === 'ecr repository not described')).toHaveLength(2);
    expect(ecr.requests.some((r) => r.body.repositoryName === 'apps/outside')).toBe(false);
    // The next pass: the same delivery, enqueued already.
    const again = await catchUpImages(sources, deps().d);
    expect(again.images.find((i) => i.tag === '1.4.0')?.action).toBe('already-enqueued');
  });

  it('describes at most maxRepositories a pass and nothing past the deadline', async () => {
    const capped = await catchUpImages(sources, deps({ maxRepositories: 1 }).d);
    expect([capped.described + capped.skipped.length, capped.deferred]).toEqual([1, 3]);
    const before = ecr.count('DescribeImages');
    const late = await catchUpImages(sources, deps({ deadline: Date.now() - 1 }).d);
    expect(ecr.count('DescribeImages')).toBe(before);
    expect(late.skipped.map((s) => s.reason)).toEqual([
      'out-of-time',
      'out-of-time',
      'out-of-time',
      'out-of-time',
    ]);
    expect(late.images).toEqual([]);
  });
});
