import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { ClusterWorkMessage, FanoutMessage } from '../../../lib/queue/messages.js';
import { registryPushEvent } from '../../../lib/registry/registry-push-event.js';
import { type PlanDeps, planPush } from '../../../lib/rollouts/plan.js';

const HEX = '7c'.repeat(32);
const event = registryPushEvent(
  'ecr',
  {
    host: '123456789012.dkr.ecr.eu-west-1.amazonaws.com',
    repository: 'charts/web',
    tag: '1.4.0',
    digest: `sha256:${HEX}`,
    account: '123456789012',
    region: 'eu-west-1',
  },
  { deliveryId: 'evt-1', receivedAt: '2026-12-02T12:00:00.000Z' },
);

const gitStep = (name: string) => () => {
  throw new Error(`${name} must not run for a registry push`);
};

describe('planning a registry push', () => {
  it('starts the rollout under the digest hex with trigger registry, and runs no Git step', async () => {
    const started: Record<string, unknown>[] = [];
    const sent: FanoutMessage[] = [];
    const deps: PlanDeps = {
      fleet: { clusters: [{ name: 'hub' }, { name: 'spoke' }] as never },
      rollouts: {
        start: async (meta: unknown) => {
          started.push(meta as unknown as Record<string, unknown>);
        },
        planClusters: async () => undefined,
      } as never,
      open: { open: async () => undefined },
      refPushes: {
        record: gitStep('recording the ref push'),
        recent: gitStep('reading ref pushes'),
      } as never,
      remoteHead: gitStep('asking the Git host for the ref head'),
      changedFiles: gitStep('the compare API'),
      queue: {
        send: async (message) => {
          sent.push(message);
        },
        sendBatch: async (entries) => {
          sent.push(...entries.map((e) => e.message));
        },
      },
      clock: { now: () => new Date('2026-12-02T12:00:01.000Z') },
      logger: createMemoryLogger(),
      trackDeadlineSeconds: 600,
      release: { initWaves: async () => false, supersede: gitStep('superseding an older commit') },
    };
    const result = await planPush({ type: 'push', trigger: 'registry', event }, deps);
    expect(result).toEqual({ clusters: ['hub', 'spoke'] });
    expect(started[0]).toMatchObject({
      sha: HEX,
      trigger: 'registry',
      repo: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web',
      ref: '1.4.0',
      provider: 'ecr',
    });
    expect(sent.map((m) => (m as ClusterWorkMessage).cluster)).toEqual(['hub', 'spoke']);
    expect((sent[0] as ClusterWorkMessage).event.image?.digest).toBe(`sha256:${HEX}`);
    expect((sent[0] as ClusterWorkMessage).head).toBeUndefined();
  });
});
