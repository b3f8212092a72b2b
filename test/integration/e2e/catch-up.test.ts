import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { signedWorldPush } from '../../helpers/world-push.js';

interface AppOut {
  cluster: string;
  name: string;
  state: string;
  revision?: string;
  message?: string;
}
type RolloutOut = Record<string, unknown> & { apps: AppOut[]; status: string };

/**
 * No push left undeployed: an older push delivered after a newer one that does not touch its apps, a
 * blocked app whose secret appears later, and an error after the last attempt, through the local stack
 * (webhook → queues → simulated Argo CD → DynamoDB) and the scheduled pass.
 */
describe('the catch-up and retries: every push ends deployed or with a reason', () => {
  let stack: TestStack;
  let n = 0;
  beforeAll(async () => {
    stack = await startTestStack({ MISSED_WEBHOOK_GRACE_SECONDS: '0' }, { clusterTimeoutMs: 400 });
  }, 60_000);
  afterEach(() => {
    for (const server of stack.world?.fleet.servers.values() ?? []) server.faults.clear();
  });
  afterAll(async () => stack?.close());

  const world = () => {
    if (stack.world === undefined) throw new Error('no simulated world');
    return stack.world;
  };
  const hub = () => {
    const s = world().fleet.servers.get('hub');
    if (s === undefined) throw new Error('no hub');
    return s;
  };

  /** Commits a new web image on main (not yet delivered). */
  async function commitWeb() {
    n += 1;
    const push = defaultPush();
    const changes = Object.fromEntries(
      Object.entries(push.changes).map(([p, text]) => [p, text.replace('web:1.9.0', `web:4.0.${n}`)]),
    );
    return world().commit('platform', changes, `web 4.0.${n}`);
  }

  const delivery = (commit: { before: string; after: string; changed: readonly string[] }, id?: string) =>
    signedWorldPush(world(), commit, `push ${commit.after.slice(0, 7)}`, { deliveryId: id });

  const deliver = async (d: { headers: Record<string, string>; body: string }) => {
    expect((await stack.post('/webhooks/github', d)).status).toBe(202);
  };
  const rollout = async (sha: string) => (await stack.get(`/rollouts/${sha}`)).body as RolloutOut;
  const app = (r: RolloutOut, name: string) =>
    (r.apps ?? []).find((a) => a.cluster === 'hub' && a.name === name);
  const patches = (name: string) => hub().requests.appliedPatches('applications').get(name) ?? 0;

  async function until(what: string, check: () => Promise<boolean>, options: { retries?: boolean } = {}) {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (options.retries === true) stack.queues.push.advance(15 * 60_000);
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('deploys an older push delivered after a newer one that does not touch its apps: synced at the later commit, not superseded', async () => {
    const b = await commitWeb();
    const c = await world().commit('platform', { 'docs/catch-up.md': `# notes ${n}\n` }, 'docs only');
    // C (docs only) arrives first and refreshes none of the web apps; B arrives after the ref moved to C.
    await deliver(delivery(c));
    await stack.rolloutWhenDone(c.after);
    hub().requests.reset();
    await deliver(delivery(b));
    const r = (await stack.rolloutWhenDone(b.after)) as RolloutOut;
    for (const name of ['web-spoke-a', 'web-preview']) {
      const record = app(r, name);
      expect(record).toMatchObject({ state: 'synced', revision: c.after });
      expect(record?.message).toContain(`at ${c.after.slice(0, 12)}, a later commit of refs/heads/main`);
      expect(patches(name)).toBe(1);
    }
    expect(r.apps.filter((a) => a.name.startsWith('web') && a.state === 'superseded')).toEqual([]);
    // Delivered once more, B finds the apps ended at C and leaves them.
    await deliver(delivery(b, `again-${b.after}`));
    await stack.rolloutWhenDone(b.after);
    expect(patches('web-spoke-a')).toBe(1);
  }, 90_000);

  it('keeps a blocked app blocked on a redelivery, and releases it on the next pass once its secret exists', async () => {
    const d = await commitWeb();
    await deliver(delivery(d));
    const first = (await stack.rolloutWhenDone(d.after)) as RolloutOut;
    expect(app(first, 'web-spoke-b')?.state).toBe('blocked');
    hub().requests.reset();
    // A pass while the property is still missing: preflighted again, still blocked, not patched.
    await stack.app.reconcile();
    const retried = () =>
      stack.logLines.some((l) => {
        const line = JSON.stringify(l);
        return (
          line.includes('cluster work done') && line.includes(`reconcile-retry:`) && line.includes(d.after)
        );
      });
    await until('the pass to retry the blocked app', async () => retried());
    const still = app((await stack.rolloutWhenDone(d.after)) as RolloutOut, 'web-spoke-b');
    expect(still).toMatchObject({ state: 'blocked' });
    expect(still?.message).toContain('spokeBToken');
    expect(patches('web-spoke-b')).toBe(0);
    // The missing property is created; a redelivered webhook still never changes the earlier block.
    world().secretsManager.put({
      name: 'platform/web/analytics',
      string: JSON.stringify({ token: 'sim-analytics-token', spokeBToken: 'sim-spoke-b-token' }),
    });
    await deliver(delivery(d, `redelivery-${d.after}`));
    await until('the redelivery to be processed', async () =>
      stack.logLines.some((l) => JSON.stringify(l).includes(`redelivery-${d.after}`)),
    );
    const redelivered = (await stack.rolloutWhenDone(d.after)) as RolloutOut;
    expect(app(redelivered, 'web-spoke-b')?.state).toBe('blocked');
    expect(patches('web-spoke-b')).toBe(0);

    await stack.app.reconcile();
    await until('web-spoke-b to be released and synced', async () => {
      const record = app(await rollout(d.after), 'web-spoke-b');
      return record?.state === 'synced';
    });
    const released = app(await rollout(d.after), 'web-spoke-b');
    expect(released).toMatchObject({ state: 'synced', revision: d.after });
    expect(patches('web-spoke-b')).toBe(1);
    // Another pass has nothing to release there any more.
    await stack.app.reconcile();
    await stack.rolloutWhenDone(d.after);
    expect(patches('web-spoke-b')).toBe(1);
  }, 90_000);

  it('retries on the next pass an app that ended in error after the last attempt', async () => {
    const e = await commitWeb();
    hub().faults.set({ status: 503, only: { verb: 'patch', resource: 'applications' } });
    hub().requests.reset();
    await deliver(delivery(e));
    await until(
      'web-spoke-a to give up',
      async () => app(await rollout(e.after), 'web-spoke-a')?.state === 'error',
      { retries: true },
    );
    const failed = app(await rollout(e.after), 'web-spoke-a');
    expect(failed?.message).toMatch(/gave up after \d+ attempts/);
    hub().faults.clear();
    await stack.rolloutWhenDone(e.after);

    await stack.app.reconcile();
    await until('web-spoke-a to be retried and synced', async () => {
      const record = app(await rollout(e.after), 'web-spoke-a');
      return record?.state === 'synced';
    });
    expect(app(await rollout(e.after), 'web-spoke-a')).toMatchObject({ state: 'synced', revision: e.after });
  }, 120_000);
});
