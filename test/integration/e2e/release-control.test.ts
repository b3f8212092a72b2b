import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import type { StoredObject } from '../../../infra/simulator/resource-store.js';
import type { FleetConfig, WaveConfig } from '../../../lib/fleet/fleet-config.js';
import { APPLICATIONS, CONFIG_MAPS } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { signedWorldPush } from '../../helpers/world-push.js';

interface AppOut {
  cluster: string;
  name: string;
  state: string;
  wave?: string;
  destination?: string;
  message?: string;
  refreshedAt?: string;
  finishedAt?: string;
}
interface WaveOut {
  name: string;
  state: string;
  clusters: string[];
  openedAt?: string;
  doneAt?: string;
  reason?: string;
}
type RolloutOut = {
  status: string;
  apps: AppOut[];
  waves?: WaveOut[];
  actions?: { action: string; by: string; detail?: string }[];
};

const wave = (name: string, extra: Partial<WaveConfig> = {}): WaveConfig => ({
  name,
  soakMs: 0,
  maxUnhealthy: { count: 0 },
  ...extra,
});

/**
 * Release control end to end on the simulated fleet: the hub's apps deploy to spoke-a and spoke-b (and the
 * hub itself), spoke-c's to itself. spoke-c holds the scripted failures (web-e2e fails, web-dr needs a
 * person); spoke-a's web apps sync.
 */
describe('release control: waves, halts, resume, abort and freezes on the simulated fleet', () => {
  let stack: TestStack;
  let n = 0;
  let waves: WaveConfig[] = [];
  beforeAll(async () => {
    stack = await startTestStack(
      // Freezes reach a container within 1 s here, not the default 10 s (the tests wait that out).
      { API_TOKEN: 'operator-token', FREEZE_CACHE_SECONDS: '1' },
      {
        fleetOverlay: (fleet: FleetConfig) => ({
          ...fleet,
          get waves() {
            return waves;
          },
        }),
      },
    );
  }, 60_000);
  afterAll(async () => stack?.close());

  const world = () => {
    if (stack.world === undefined) throw new Error('no simulated world');
    return stack.world;
  };
  const auth = { authorization: 'Bearer operator-token' };

  async function pushWeb(): Promise<string> {
    n += 1;
    const push = defaultPush();
    const changes = Object.fromEntries(
      Object.entries(push.changes).map(([p, text]) => [p, text.replace('web:1.9.0', `web:5.0.${n}`)]),
    );
    const commit = await world().commit('platform', changes, `web 5.0.${n}`);
    const delivery = signedWorldPush(world(), commit, `web 5.0.${n}`);
    const answer = await stack.post('/webhooks/github', delivery);
    expect(answer.status).toBe(202);
    watched = commit.after;
    return commit.after;
  }

  const rollout = async (sha: string) => {
    const answer = await fetch(`${stack.url}/rollouts/${sha}`, { headers: auth });
    return (await answer.json()) as RolloutOut;
  };
  const act = async (sha: string, action: string, body?: unknown) => {
    const answer = await fetch(`${stack.url}/rollouts/${sha}/${action}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as RolloutOut & { error?: string } };
  };
  let watched = '';
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 45_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      // Delayed retries and gate messages become due at once.
      stack.queues.push.advance(15 * 60_000);
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seen = watched === '' ? '' : JSON.stringify(await rollout(watched), null, 1).slice(0, 6000);
    throw new Error(`timed out waiting for ${what}: ${seen}`);
  }
  const app = (r: RolloutOut, cluster: string, name: string) =>
    (r.apps ?? []).find((a) => a.cluster === cluster && a.name === name);

  it('lists an Argo CD that polls Git in the rollout’s ungated when it holds apps there without a pin', async () => {
    // The hub's Argo CD polls every 180 s (the default); the next pass raises argocd-polling-on.
    const hub = world().fleet.servers.get('hub');
    const cm = hub?.store.require(CONFIG_MAPS, 'argocd', 'argocd-cm') as StoredObject;
    hub?.store.replace(CONFIG_MAPS, { ...cm, data: {} } as StoredObject);
    await stack.app.reconcile();
    waves = [wave('canary', { clusters: ['spoke-c'] }), wave('rest')];
    // First of this file: a fan-out container trusts the list it read for a minute.
    const sha = await pushWeb();
    await until('the canary halted', async () => (await rollout(sha)).status === 'halted');
    const r = (await rollout(sha)) as RolloutOut & {
      ungated?: { cluster: string; namespace: string; reason: string }[];
    };
    expect(r.ungated).toEqual([
      { cluster: 'hub', namespace: 'argocd', reason: expect.stringContaining('180s') },
    ]);
    hub?.store.replace(CONFIG_MAPS, {
      ...(hub?.store.require(CONFIG_MAPS, 'argocd', 'argocd-cm') as StoredObject),
      data: { 'timeout.reconciliation': '0s' },
    } as StoredObject);
  }, 60_000);

  it('refreshes the canary first, holds the rest until it is synced, then halts on the rest wave’s failures', async () => {
    // spoke-a's web-canary is scripted to degrade: the canary tolerates one unhealthy app.
    waves = [wave('canary', { clusters: ['spoke-a'], maxUnhealthy: { count: 1 } }), wave('rest')];
    const sha = await pushWeb();
    // The canary's web app syncs while spoke-c's web apps wait in the rest wave.
    await until(
      'the canary synced',
      async () => app(await rollout(sha), 'hub', 'web-spoke-a')?.state === 'synced',
    );
    await until('the rest wave halted', async () => (await rollout(sha)).status === 'halted');
    const r = await rollout(sha);
    const [canary, rest] = r.waves ?? [];
    expect(canary).toMatchObject({ name: 'canary', state: 'done', clusters: ['spoke-a'] });
    expect(rest?.name).toBe('rest');
    expect(rest?.state).toBe('halted');
    expect(rest?.reason).toMatch(/failed|out-of-sync|blocked|degraded/);
    const canaryDone = Date.parse(canary?.doneAt ?? '');
    expect(Date.parse(rest?.openedAt ?? '')).toBeGreaterThanOrEqual(canaryDone);
    // Every app of the rest wave was refreshed only after the canary's wave was done. The halt (hub's
    // blocked app, decided as its work item ran) can land while spoke-c's work item is between its claim
    // and its PATCH: wait for that app to settle first.
    await until(
      'spoke-c’s web app to leave its claim',
      async () => app(await rollout(sha), 'spoke-c', 'web')?.state !== 'matched',
    );
    const spokeCWeb = app(await rollout(sha), 'spoke-c', 'web');
    expect(spokeCWeb?.wave).toBe('rest');
    expect(Date.parse(spokeCWeb?.refreshedAt ?? '')).toBeGreaterThanOrEqual(canaryDone);
    expect(app(r, 'hub', 'web-spoke-a')).toMatchObject({ wave: 'canary', destination: 'spoke-a' });
    expect(r.actions?.map((a) => a.action)).toEqual(['open-wave', 'halt']);
  }, 60_000);

  it('halts at a failing canary and holds the next wave; resume with skipFailed opens it', async () => {
    waves = [wave('canary', { clusters: ['spoke-c'] }), wave('rest', { maxUnhealthy: { percent: 100 } })];
    const sha = await pushWeb();
    await until('the canary halted', async () => (await rollout(sha)).status === 'halted');
    let r = await rollout(sha);
    expect(r.waves?.map((w) => w.state)).toEqual(['halted', 'waiting']);
    const held = app(r, 'hub', 'web-spoke-a');
    expect(held?.state).toBe('held');
    expect(held?.message).toMatch(/wave rest waits/);
    // Nothing but the halted wave's apps was patched: the held app never left its commit.
    expect(held?.refreshedAt).toBeUndefined();

    expect((await act(sha, 'resume', { skipFailed: 'yes' })).status).toBe(400);
    const resumed = await act(sha, 'resume', { skipFailed: true });
    expect(resumed.status).toBe(200);
    await until(
      'the held app synced',
      async () => app(await rollout(sha), 'hub', 'web-spoke-a')?.state === 'synced',
    );
    r = await rollout(sha);
    expect(r.waves?.map((w) => w.state)).toEqual(['done', expect.stringMatching(/open|done/)]);
    expect(r.actions?.find((a) => a.action === 'resume')).toMatchObject({
      by: 'token',
      detail: 'skipFailed',
    });
    // A rollout that is not halted or paused cannot be resumed.
    expect((await act(sha, 'resume')).status).toBe(409);
  }, 60_000);

  it('aborts a halted rollout: its held apps end aborted and nothing more is refreshed', async () => {
    waves = [wave('canary', { clusters: ['spoke-c'] }), wave('rest')];
    const sha = await pushWeb();
    await until('the canary halted', async () => (await rollout(sha)).status === 'halted');
    const aborted = await act(sha, 'abort');
    expect(aborted.status).toBe(200);
    await until(
      'the held apps aborted',
      async () => app(await rollout(sha), 'hub', 'web-spoke-a')?.state === 'aborted',
    );
    const r = await rollout(sha);
    expect(r.status).toBe('aborted');
    expect(r.waves?.[1]?.state).toBe('aborted');
    expect(app(r, 'hub', 'web-spoke-a')?.refreshedAt).toBeUndefined();
    expect((await act(sha, 'abort')).status).toBe(409);
    expect((await act('0'.repeat(40), 'abort')).status).toBe(404);
  }, 60_000);

  it('a newer commit supersedes a halted rollout: its waiting wave ends superseded and the held apps with it', async () => {
    waves = [wave('canary', { clusters: ['spoke-c'] }), wave('rest')];
    const older = await pushWeb();
    await until('the canary halted', async () => (await rollout(older)).status === 'halted');
    const newer = await pushWeb();
    await until('the older rollout superseded', async () => {
      const r = await rollout(older);
      return r.waves?.[1]?.state === 'superseded' && app(r, 'hub', 'web-spoke-a')?.state === 'superseded';
    });
    expect((await rollout(older)).waves?.[1]?.reason).toBe(`superseded by ${newer.slice(0, 12)}`);
    await until(
      'the newer one halted at its own canary',
      async () => (await rollout(newer)).status === 'halted',
    );
    expect(app(await rollout(newer), 'hub', 'web-spoke-a')?.state).toBe('held');
  }, 60_000);

  it('a freeze holds every matching app of a push; lifting it lets the sweep release them', async () => {
    waves = [];
    const created = await fetch(`${stack.url}/freezes`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ cluster: 'spoke-a', reason: 'incident 42' }),
    });
    expect(created.status).toBe(201);
    const freeze = (await created.json()) as { id: string };
    // A freeze a container already read reaches it within its cache (FREEZE_CACHE_SECONDS): wait it out.
    await new Promise((r) => setTimeout(r, 1_500));
    // Every revision the hub's web-spoke-a goes live at, and when: the freeze must keep it where it is.
    const hub = world().fleet.servers.get('hub');
    const live = () => {
      const object = hub?.store.get(APPLICATIONS, 'argocd', 'web-spoke-a') as
        | { status?: { sync?: { revision?: string } } }
        | undefined;
      return object?.status?.sync?.revision;
    };
    const trace: string[] = [];
    let last: string | undefined;
    const sampler = setInterval(() => {
      const now = live();
      if (now !== last) trace.push(`${new Date().toISOString()} ${now?.slice(0, 8)}`);
      last = now;
    }, 20);
    const sha = await pushWeb();
    await until('spoke-c synced', async () => app(await rollout(sha), 'spoke-c', 'web')?.state === 'synced');
    let r = await rollout(sha);
    const frozen = app(r, 'hub', 'web-spoke-a');
    expect(frozen?.state).toBe('held');
    expect(frozen?.message).toMatch(/frozen: incident 42/);
    expect(live(), `frozen, yet live at the commit: ${trace.join(', ')}`).not.toBe(sha);
    trace.push(`${new Date().toISOString()} lifted`);
    const lifted = await fetch(`${stack.url}/freezes/${freeze.id}`, { method: 'DELETE', headers: auth });
    expect(lifted.status).toBe(204);
    await new Promise((r) => setTimeout(r, 1_500));
    // The sweep alone (its own every-minute schedule in AWS) looks at held apps again.
    await stack.app.reconcile({ sweepOnly: true });
    await until(
      'the frozen app synced',
      async () => app(await rollout(sha), 'hub', 'web-spoke-a')?.state === 'synced',
    );
    clearInterval(sampler);
    r = await rollout(sha);
    const released = app(r, 'hub', 'web-spoke-a');
    if (released?.refreshedAt === undefined) {
      const list = (await (await fetch(`${stack.url}/rollouts?limit=20`, { headers: auth })).json()) as {
        items?: { sha: string }[];
      };
      for (const item of list.items ?? []) {
        const other = app(await rollout(item.sha), 'hub', 'web-spoke-a');
        trace.push(`${item.sha.slice(0, 8)}: ${JSON.stringify(other)}`);
      }
    }
    expect(released?.refreshedAt, `${JSON.stringify(released)} ${trace.join(', ')}`).toBeDefined();
  }, 90_000);

  it('a held app Argo CD polled to the commit by itself (advisory) is followed to its end when its wave opens', async () => {
    const hub = world().fleet.servers.get('hub');
    const setPolling = (value: string) =>
      hub?.store.replace(CONFIG_MAPS, {
        ...(hub?.store.require(CONFIG_MAPS, 'argocd', 'argocd-cm') as StoredObject),
        data: { 'timeout.reconciliation': value },
      } as StoredObject);
    setPolling('1s');
    try {
      waves = [
        wave('canary', { clusters: ['spoke-c'], soakMs: 4_000, maxUnhealthy: { percent: 100 } }),
        wave('rest', { maxUnhealthy: { percent: 100 } }),
      ];
      const sha = await pushWeb();
      await until('the rest wave done', async () => (await rollout(sha)).waves?.[1]?.state === 'done');
      const web = app(await rollout(sha), 'hub', 'web-spoke-a');
      expect(web?.state).toBe('synced');
    } finally {
      setPolling('0s');
    }
  }, 60_000);

  it('keeps a rollout’s held apps in the waves it was planned with when the fleet’s waves change', async () => {
    waves = [wave('canary', { clusters: ['spoke-c'] }), wave('rest')];
    const older = await pushWeb();
    await until('the canary halted', async () => (await rollout(older)).status === 'halted');
    expect(app(await rollout(older), 'hub', 'web-spoke-a')?.state).toBe('held');
    // The operator drops `waves:` from the fleet file, then a newer commit supersedes the halted rollout:
    // its held apps end superseded with their waves, never refreshed for want of a wave.
    waves = [];
    const newer = await pushWeb();
    await until('the older rollout’s held app ended', async () => {
      const state = app(await rollout(older), 'hub', 'web-spoke-a')?.state;
      return state !== 'held' && state !== 'matched';
    });
    await stack.queues.push.idle();
    const ended = app(await rollout(older), 'hub', 'web-spoke-a');
    expect(ended?.refreshedAt, JSON.stringify(ended)).toBeUndefined();
    expect(ended).toMatchObject({ state: 'superseded', message: `superseded by ${newer.slice(0, 12)}` });
  }, 60_000);
});
