import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { PushMessage } from '../../../lib/queue/messages.js';
import type { MissedPush } from '../../../lib/reconcile/behind.js';
import { enqueueMissedPushes } from '../../../lib/reconcile/missed-webhooks.js';
import type { StoredApp } from '../../../lib/rollouts/app-model.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';

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

const record = (state: AppState, claimedAt?: string): StoredApp => ({
  cluster: 'hub',
  namespace: 'argocd',
  name: 'web',
  kind: 'Application',
  state,
  version: 2,
  ...(claimedAt === undefined ? {} : { claimedAt }),
});

function deps(
  options: { exists?: boolean; claimed?: boolean; sendFails?: boolean; records?: StoredApp[] } = {},
) {
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
    rollouts: { exists: async () => options.exists === true, listApps: async () => options.records ?? [] },
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
    [
      'refreshes an app with no record at a commit whose rollout exists',
      push(T - 600_000),
      { exists: true },
      'enqueued',
      1,
      1,
    ],
    [
      'leaves an app held at that commit',
      push(T - 600_000),
      { exists: true, records: [record('held')] },
      'rollout-exists',
      0,
      0,
    ],
    [
      'leaves an app claimed within the refresh window',
      push(T - 600_000),
      { exists: true, records: [record('refreshed', new Date(T - 10_000).toISOString())] },
      'rollout-exists',
      0,
      0,
    ],
    [
      'refreshes an app in flight past the refresh window',
      push(T - 600_000),
      { exists: true, records: [record('refreshed', new Date(T - 120_000).toISOString())] },
      'enqueued',
      1,
      1,
    ],
    [
      'retries an app blocked there, without a claim',
      push(T - 600_000),
      { exists: true, records: [record('blocked')] },
      'retried',
      1,
      0,
    ],
    [
      'retries an app that ended in error there',
      push(T - 600_000),
      { exists: true, records: [record('error')] },
      'retried',
      1,
      0,
    ],
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

  it('sends only the apps that need it: a refresh push under the claim and a retry push for the blocked one', async () => {
    const missed: MissedPush = {
      ...push(T - 600_000),
      apps: ['web', 'api', 'docs'].map((name) => ({
        cluster: 'hub',
        namespace: 'argocd',
        name,
        synced: 'a'.repeat(40),
        since: T - 600_000,
      })),
    };
    const records = [
      { ...record('blocked'), name: 'api' },
      { ...record('held'), name: 'docs' },
    ];
    const d = deps({ exists: true, records });
    const [report] = await enqueueMissedPushes([missed], d);
    expect(report).toMatchObject({ action: 'enqueued', apps: 3, refreshed: 1, retried: 1 });
    expect(d.claims).toEqual([KEY]);
    const [refresh, retry] = d.sent;
    expect(refresh).toMatchObject({ trigger: 'schedule', missedWebhook: true, apps: [{ name: 'web' }] });
    expect(refresh?.retry).toBeUndefined();
    expect(retry).toMatchObject({
      trigger: 'schedule',
      retry: true,
      apps: [{ name: 'api', kind: 'Application' }],
    });
    expect(retry?.missedWebhook).toBeUndefined();
    expect(retry?.event.deliveryId).toMatch(/^reconcile-retry:/);
  });
});
