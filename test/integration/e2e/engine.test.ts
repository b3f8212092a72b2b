import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bareRepoPath } from '../../../infra/local/git-repos.js';
import { githubPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { TrackMessage } from '../../../lib/queue/messages.js';
import { dynamoClusterLeases } from '../../../lib/store/cluster-leases.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { dynamoClusterTrackers } from '../../../lib/store/trackers.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

const run = promisify(execFile);

interface AppOut {
  cluster: string;
  namespace: string;
  name: string;
  kind: string;
  state: string;
  revision?: string;
  message?: string;
  refreshedAt?: string;
}
type RolloutOut = Record<string, unknown> & { apps: AppOut[]; status: string };

describe('the rollout engine under the faults a production fleet sees', () => {
  let stack: TestStack;
  let n = 0;
  beforeAll(async () => {
    stack = await startTestStack({}, { clusterTimeoutMs: 400 });
  }, 60_000);
  afterEach(() => {
    for (const server of stack.world?.fleet.servers.values() ?? []) server.faults.clear();
  });
  afterAll(async () => stack?.close());

  const world = () => {
    if (stack.world === undefined) throw new Error('no simulated world');
    return stack.world;
  };
  const server = (name: string) => {
    const s = world().fleet.servers.get(name);
    if (s === undefined) throw new Error(`no cluster ${name}`);
    return s;
  };
  const resetRequests = () => {
    for (const s of world().fleet.servers.values()) s.requests.reset();
  };

  /** Commits a new web image on main and returns the signed push (not yet delivered). */
  async function commitWeb() {
    n += 1;
    const push = defaultPush();
    const changes = Object.fromEntries(
      Object.entries(push.changes).map(([p, text]) => [p, text.replace('web:1.9.0', `web:3.0.${n}`)]),
    );
    const commit = await world().commit('platform', changes, `web 3.0.${n}`);
    return {
      ...commit,
      delivery: (forced = false) => signed(commit.before, commit.after, commit.changed, forced),
    };
  }

  function signed(before: string, after: string, changed: readonly string[], forced = false, id?: string) {
    return githubPush(
      {
        forced,
        repoUrl: world().repoUrl('platform'),
        fullName: 'example/platform',
        branch: 'main',
        before,
        after,
        changed,
        message: `push ${after.slice(0, 7)}`,
      },
      LOCAL_GITHUB_SECRET,
      id,
    );
  }

  const deliver = async (delivery: { headers: Record<string, string>; body: string }) => {
    const answer = await stack.post('/webhooks/github', delivery);
    expect(answer.status).toBe(202);
  };

  const rollout = async (sha: string) => (await stack.get(`/rollouts/${sha}`)).body as RolloutOut;

  /** Polls `check`; with `retries`, delayed retries are made due on every round (they may be sent meanwhile). */
  async function until(what: string, check: () => Promise<boolean>, options: { retries?: boolean } = {}) {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (options.retries === true) skipRetryDelays();
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  /** True when no cluster has a rollout registered for tracking or a chain holding its lease. */
  async function quietFleet(): Promise<boolean> {
    const trackers = dynamoClusterTrackers(
      createTableRef({
        tableName: stack.config.tableName,
        region: stack.config.region,
        endpoint: stack.dynamodbEndpoint,
      }),
      86_400,
    );
    for (const cluster of world().fleet.servers.keys()) {
      const { chain, registered } = (await trackers.read?.(cluster)) ?? { registered: [] };
      if (registered.length > 0) return false;
      if (chain?.leaseUntil !== undefined && Date.parse(chain.leaseUntil) > Date.now()) return false;
    }
    return true;
  }

  /** Runs delayed retries now: the push queue's waiting messages become due. */
  const skipRetryDelays = () => stack.queues.push.advance(15 * 60_000);

  const app = (r: RolloutOut, cluster: string, name: string) =>
    (r.apps ?? []).find((a) => a.cluster === cluster && a.name === name);

  function expectEachPatchedOnce() {
    for (const [cluster, s] of world().fleet.servers) {
      for (const [name, count] of s.requests.appliedPatches('applications')) {
        expect({ cluster, name, count }).toEqual({ cluster, name, count: 1 });
      }
    }
  }

  it('applies a force-push rollback: the apps at the newer commit are refreshed back', async () => {
    const a = await commitWeb();
    await deliver(a.delivery());
    expect((await stack.rolloutWhenDone(a.after)).status).not.toBe('pending');
    const b = await commitWeb();
    await deliver(b.delivery());
    await stack.rolloutWhenDone(b.after);
    expect(app(await rollout(b.after), 'hub', 'web-spoke-a')?.state).toBe('synced');

    // main is forced back to A; GitHub sends a forced push B→A.
    await run('git', [
      '--git-dir',
      bareRepoPath(world().reposRoot, 'platform'),
      'update-ref',
      'refs/heads/main',
      a.after,
    ]);
    resetRequests();
    await deliver(signed(b.after, a.after, b.changed, true));
    const live = () =>
      (
        server('hub').store.get(APPLICATIONS, 'argocd', 'web-spoke-a')?.status as {
          sync?: { revision?: string };
        }
      )?.sync?.revision;
    await until('Argo CD to be back at A', async () => live() === a.after).catch(async (e) => {
      console.log(
        'LIVE',
        live(),
        'A',
        a.after,
        'B',
        b.after,
        JSON.stringify(app(await rollout(a.after), 'hub', 'web-spoke-a')),
      );
      console.log(
        JSON.stringify(server('hub').store.get(APPLICATIONS, 'argocd', 'web-spoke-a')?.status).slice(0, 1500),
      );
      for (const l of stack.logLines.slice(-40)) console.log(JSON.stringify(l).slice(0, 300));
      throw e;
    });
    // A's summary still reads its first end until the rollback's work items of one batch write their views
    // together (at most 2 s after the last of them patched): wait for the apps, then for the rollout.
    await until('the rollback’s apps to end synced at A', async () => {
      const now = await rollout(a.after);
      return ['web-spoke-a', 'web-preview'].every((name) => app(now, 'hub', name)?.state === 'synced');
    });
    const r = (await stack.rolloutWhenDone(a.after)) as RolloutOut;
    for (const name of ['web-spoke-a', 'web-preview']) {
      expect(app(r, 'hub', name)).toMatchObject({ state: 'synced', revision: a.after });
    }
    expect(server('hub').requests.appliedPatches('applications').get('web-spoke-a')).toBe(1);
    expectEachPatchedOnce();
  }, 90_000);

  it('ends an older commit delivered after a newer one as superseded, not as a fleet-wide timeout', async () => {
    const a = await commitWeb();
    const b = await commitWeb();
    await deliver(b.delivery());
    await stack.rolloutWhenDone(b.after);
    resetRequests();
    const slackBefore = stack.slack?.messages().length ?? 0;
    await deliver(a.delivery());
    const r = (await stack.rolloutWhenDone(a.after)) as RolloutOut;
    const web = (r.apps as AppOut[]).filter((x) => x.name.startsWith('web'));
    expect(web.length).toBeGreaterThan(0);
    for (const x of web) expect(x.state).toBe('superseded');
    expect(r.status).not.toBe('failed');
    expect(server('hub').requests.appliedPatches('applications').size).toBe(0);
    // Superseded apps get no thread reply of their own.
    const replies = (stack.slack?.messages() ?? [])
      .slice(slackBefore)
      .filter((m) => m.threadTs !== undefined);
    expect(replies.filter((m) => m.text.includes('superseded'))).toEqual([]);
  }, 60_000);

  it('finishes the other clusters while one is down for the whole rollout, then records it as failed', async () => {
    server('spoke-c').faults.set({ status: 503 });
    const c = await commitWeb();
    await deliver(c.delivery());
    // The summary's status follows the app records by up to one gather (≤ 2 s): wait for it too.
    await until('the other clusters to finish', async () => {
      const r = await rollout(c.after);
      return app(r, 'hub', 'web-spoke-a')?.state === 'synced' && r.status !== 'pending';
    });
    const midway = await rollout(c.after);
    expect(midway.status).toBe('in-progress');
    expect((midway.clusterErrors as Record<string, string>)['spoke-c']).toMatch(/retrying/);
    await until(
      'spoke-c to be given up',
      async () => ((await rollout(c.after)).clusters as Record<string, string>)?.['spoke-c'] === 'failed',
      { retries: true },
    );
    const r = (await stack.rolloutWhenDone(c.after)) as RolloutOut;
    expect((r.clusters as Record<string, string>)['spoke-c']).toBe('failed');
    expect((r.clusterErrors as Record<string, string>)['spoke-c']).toMatch(/gave up after 5 attempts/);
    expect(r.status).toBe('partial');
    expectEachPatchedOnce();
  }, 90_000);

  it('records the other clusters at once while PATCHes hang on one, and refreshes it once they answer', async () => {
    resetRequests();
    server('spoke-c').faults.set({ hang: true, only: { verb: 'patch' } });
    const c = await commitWeb();
    await deliver(c.delivery());
    await until('the other clusters to be recorded', async () => {
      const r = await rollout(c.after);
      return app(r, 'hub', 'web-spoke-a')?.state === 'synced';
    });
    await until('the hung PATCH to give up and be queued again', async () =>
      /refresh failed: .*retrying/.test(app(await rollout(c.after), 'spoke-c', 'web')?.message ?? ''),
    );
    expect(app(await rollout(c.after), 'spoke-c', 'web')?.state).toBe('matched');
    server('spoke-c').faults.clear();
    skipRetryDelays();
    await until(
      'spoke-c to be refreshed',
      async () => app(await rollout(c.after), 'spoke-c', 'web')?.state === 'synced',
    );
    expectEachPatchedOnce();
  }, 90_000);

  it('retries the PATCHes a 503 burst refused and ends with every app refreshed once', async () => {
    resetRequests();
    server('spoke-c').faults.set({ status: 503, only: { verb: 'patch' }, times: 12 });
    const c = await commitWeb();
    await deliver(c.delivery());
    await until(
      'spoke-c to be refreshed after its retry',
      async () => app(await rollout(c.after), 'spoke-c', 'web')?.state === 'synced',
      { retries: true },
    );
    const r = (await stack.rolloutWhenDone(c.after)) as RolloutOut;
    expect(
      server('spoke-c')
        .requests.all()
        .filter((x) => x.verb === 'patch' && x.faulted === true),
    ).toHaveLength(12);
    for (const name of ['web', 'platform-shared']) expect(app(r, 'spoke-c', name)?.state).toBe('synced');
    expect(server('spoke-c').requests.appliedPatches('applications').get('web')).toBe(1);
    expectEachPatchedOnce();
  }, 90_000);

  it('patches each app once when two deliveries of one commit arrive at the same time', async () => {
    resetRequests();
    const c = await commitWeb();
    await Promise.all([deliver(c.delivery()), deliver(c.delivery())]);
    const r = (await stack.rolloutWhenDone(c.after)) as RolloutOut;
    expect(app(r, 'hub', 'web-spoke-a')?.state).toBe('synced');
    expectEachPatchedOnce();
    expect(server('hub').requests.appliedPatches('applications').get('web-spoke-a')).toBe(1);
  }, 60_000);

  it('sends a work item back while another holds its cluster, then patches each app once', async () => {
    const c = await commitWeb();
    const leases = dynamoClusterLeases(
      createTableRef({
        tableName: stack.config.tableName,
        region: stack.config.region,
        endpoint: stack.dynamodbEndpoint,
      }),
      86_400,
    );
    // Another work item of this commit is on the hub (its invocation has 60 s left).
    expect((await leases.acquire(c.after, 'hub', 'another-work-item', Date.now() + 60_000)).held).toBe(true);
    resetRequests();
    await deliver(c.delivery());
    const deferred = () =>
      stack.logLines.some(
        (l) =>
          l.message === 'cluster busy: work item deferred' &&
          l.fields?.cluster === 'hub' &&
          l.fields?.sha === c.after,
      );
    await until('the hub work item deferred', async () => deferred());
    expect(server('hub').requests.appliedPatches('applications').size).toBe(0);
    await leases.release(c.after, 'hub', 'another-work-item');
    await until(
      'the hub refreshed once its lease is free',
      async () => app(await rollout(c.after), 'hub', 'web-spoke-a')?.refreshedAt !== undefined,
      { retries: true },
    );
    const r = (await stack.rolloutWhenDone(c.after)) as RolloutOut;
    expect(app(r, 'hub', 'web-spoke-a')?.state).toBe('synced');
    expectEachPatchedOnce();
  }, 90_000);

  it('keeps an earlier block when the commit is delivered again', async () => {
    const c = await commitWeb();
    await deliver(c.delivery());
    await stack.rolloutWhenDone(c.after);
    const blocked = app(await rollout(c.after), 'hub', 'web-spoke-b');
    expect(blocked?.state).toBe('blocked');
    await deliver(c.delivery());
    await new Promise((r) => setTimeout(r, 1500));
    expect(app(await rollout(c.after), 'hub', 'web-spoke-b')).toMatchObject({
      state: 'blocked',
      message: blocked?.message,
    });
    const { body } = await stack.get(`/rollouts/${c.after}?include=decisions`);
    const decisions = (body as { decisionRecords: { name: string; decision: string }[] }).decisionRecords;
    expect(decisions.find((d) => d.name === 'web-spoke-b')?.decision).toBe('blocked');
  }, 60_000);

  it('refreshes a multi-source app through its readable source and names the one it ignored', async () => {
    server('hub').store.create(APPLICATIONS, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web-multi', namespace: 'argocd' },
      spec: {
        project: 'default',
        sources: [
          { repoURL: world().repoUrl('platform'), path: 'apps/web/base', targetRevision: 'main' },
          { path: 'charts/broken', targetRevision: 'main' },
        ],
        destination: { name: 'in-cluster', namespace: 'web-multi' },
        syncPolicy: { automated: {} },
      },
    });
    resetRequests();
    const c = await commitWeb();
    await deliver(c.delivery());
    await until('the multi-source app to be refreshed', async () => {
      const state = app(await rollout(c.after), 'hub', 'web-multi')?.state;
      return state !== undefined && state !== 'matched';
    });
    expect(server('hub').requests.appliedPatches('applications').get('web-multi')).toBe(1);
    let decision: { decision: string; detail?: string } | undefined;
    await until('its decision to be recorded', async () => {
      const { body } = await stack.get(`/rollouts/${c.after}?include=decisions`);
      const records = (body as { decisionRecords?: { name: string; decision: string; detail?: string }[] })
        .decisionRecords;
      decision = records?.find((d) => d.name === 'web-multi');
      return decision !== undefined;
    });
    expect(decision).toMatchObject({
      decision: 'refreshed',
      detail: expect.stringMatching(/sources\[1\] ignored/),
    });
  }, 60_000);

  it('ends a rollout whose track message was lost: the sweep restarts the chain', async () => {
    // A cluster has one polling chain for every rollout on it: a chain still polling for an earlier
    // test's rollout would track this one too, so the fleet has to be quiet first.
    await until('every cluster without registrations or a live chain', quietFleet);
    const c = await commitWeb();
    // Lose every track message of this rollout: the queue drops them as they are sent.
    const track = stack.queues.track as unknown as { send: (m: TrackMessage) => Promise<void> };
    const send = track.send.bind(track);
    track.send = async () => undefined;
    try {
      await deliver(c.delivery());
      await until('fan-out to record the apps', async () => {
        const r = await rollout(c.after);
        const progress = Object.values((r.clusters as Record<string, string>) ?? {});
        return progress.length === 4 && progress.every((p) => p === 'done');
      });
    } finally {
      track.send = send;
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect((await rollout(c.after)).status).toBe('in-progress');
    // Past the chain's lease (4 s in tests) the reconcile sweep claims it again and polls.
    await new Promise((r) => setTimeout(r, 4500));
    await stack.app.reconcile();
    const r = (await stack.rolloutWhenDone(c.after)) as RolloutOut;
    expect(app(r, 'hub', 'web-spoke-a')?.state).toBe('synced');
  }, 90_000);
});
