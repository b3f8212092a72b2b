import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import type { MissedPush } from '../../../lib/reconcile/behind.js';
import { enqueueMissedPushes } from '../../../lib/reconcile/missed-webhooks.js';

const SHA = 'c'.repeat(40);
const T = Date.parse('2026-09-01T10:00:00Z');
const KEY = `git.example/org/gitops:refs/heads/main:${SHA}`;

const push = (since: number): MissedPush => ({
  key: KEY,
  repoKey: 'git.example/org/gitops',
  repo: { url: 'https://git.example/org/gitops' },
  ref: 'refs/heads/main',
  sha: SHA,
  apps: [{ cluster: 'hub', namespace: 'argocd', name: 'web', synced: 'a'.repeat(40), since }],
  since,
});

function deps(options: { exists?: boolean; claimed?: boolean; sendFails?: boolean } = {}) {
  const sent: PushMessage[] = [];
  const claims: string[] = [];
  const released: string[] = [];
  return {
    sent,
    claims,
    released,
    memory: {
      claimMissedWebhook: async (key: string) => {
        claims.push(key);
        return options.claimed !== true;
      },
      releaseMissedWebhook: async (key: string) => {
        released.push(key);
      },
    },
    rollouts: { exists: async () => options.exists === true },
    pushQueue: {
      send: async (message: PushMessage) => {
        if (options.sendFails === true) throw new Error('queue down');
        sent.push(message);
      },
      sendBatch: async () => {
        throw new Error('the catch-up sends one message at a time');
      },
    },
    clock: { now: () => new Date(T) },
    logger: createMemoryLogger(),
    graceMs: 120_000,
  };
}

describe('enqueueMissedPushes', () => {
  it.each([
    ['waits inside the grace period', push(T - 60_000), {}, 'waiting', 0, 0],
    ['enqueues once the grace period has passed', push(T - 120_000), {}, 'enqueued', 1, 1],
    ['skips a commit whose rollout exists', push(T - 600_000), { exists: true }, 'rollout-exists', 0, 0],
    [
      'skips a push enqueued by an earlier pass',
      push(T - 600_000),
      { claimed: true },
      'already-enqueued',
      0,
      1,
    ],
  ])('%s', async (_name, missed, options, action, sent, claims) => {
    const d = deps(options);
    const [report] = await enqueueMissedPushes([missed], d);
    expect(report?.action).toBe(action);
    expect(d.sent).toHaveLength(sent);
    expect(d.claims).toHaveLength(claims);
  });

  it('gives the claim back when the push cannot be enqueued, so the next pass tries again', async () => {
    const d = deps({ sendFails: true });
    const [report] = await enqueueMissedPushes([push(T - 600_000)], d);
    expect(report).toMatchObject({ action: 'failed', error: 'queue down' });
    expect(d.released).toEqual([KEY]);
  });
});
