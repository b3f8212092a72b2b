import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { PushEvent } from '../../../lib/webhook/push-event.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { worldSample } from '../../helpers/world-push.js';

interface AppOut {
  cluster: string;
  name: string;
  state: string;
  message?: string;
}

describe('fan-out when a cluster fails', () => {
  let stack: TestStack;
  let pushes = 0;
  beforeAll(async () => {
    stack = await startTestStack({}, { clusterTimeoutMs: 400 });
  }, 90_000);
  afterEach(() => {
    for (const server of stack.world?.fleet.servers.values() ?? []) server.faults.clear();
  });
  afterAll(async () => stack?.close());

  async function commitWebChange() {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const push = defaultPush();
    pushes += 1;
    const changes = Object.fromEntries(
      Object.entries(push.changes).map(([p, text]) => [p, text.replace('web:1.9.0', `web:2.0.${pushes}`)]),
    );
    const commit = await world.commit('platform', changes, `web 2.0.${pushes}`);
    const sample = worldSample(world, commit, `web 2.0.${pushes}`);
    return { sha: commit.after, delivery: githubPush(sample, LOCAL_GITHUB_SECRET) };
  }

  it('retries the apps of a cluster answering 500 and records error after the last attempt, the others refreshed', async () => {
    const spokeC = stack.world?.fleet.servers.get('spoke-c');
    spokeC?.faults.set({ status: 500, only: { verb: 'patch' } });
    const { sha, delivery } = await commitWebChange();
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    let rollout: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      stack.queues.push.advance(15 * 60_000);
      rollout = (await stack.get(`/rollouts/${sha}`)).body as Record<string, unknown>;
      if (rollout.status !== undefined && rollout.status !== 'pending' && rollout.status !== 'in-progress')
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const apps = rollout.apps as AppOut[];
    const onSpokeC = apps.filter((a) => a.cluster === 'spoke-c');
    expect(onSpokeC.length).toBeGreaterThan(0);
    for (const app of onSpokeC) {
      expect(app.state).toBe('error');
      expect(app.message).toMatch(/refresh failed: .*500.*gave up after 5 attempts/);
    }
    expect(apps.find((a) => a.cluster === 'hub' && a.name === 'web-spoke-a')?.state).toBe('synced');
    expect(rollout.status).toBe('partial');
  }, 90_000);

  it('records a cluster that times out listing, refreshes the others, and reads it on a later retry', async () => {
    const spokeC = stack.world?.fleet.servers.get('spoke-c');
    spokeC?.faults.set({ hang: true, only: { verb: 'list' } });
    const { sha, delivery } = await commitWebChange();
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);

    let rollout: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) {
      rollout = (await stack.get(`/rollouts/${sha}`)).body as Record<string, unknown>;
      const errors = rollout.clusterErrors as Record<string, string> | undefined;
      const others = (rollout.apps as AppOut[] | undefined)?.find((a) => a.name === 'web-spoke-a');
      // The summary's status follows the app records by up to a gather (≤ 2 s): wait for it too.
      if (errors?.['spoke-c'] !== undefined && others?.state === 'synced' && rollout.status !== 'pending')
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((rollout.clusterErrors as Record<string, string>)['spoke-c']).toMatch(
      /cannot list objects: .*\(retrying\)/,
    );
    const apps = rollout.apps as AppOut[];
    expect(apps.some((a) => a.cluster === 'spoke-c')).toBe(false);
    expect(apps.find((a) => a.name === 'web-spoke-a')?.state).toBe('synced');
    // The cluster counts as unfinished while it is retried: the rollout is not reported done.
    expect(rollout.status).toBe('in-progress');
    // The retry of spoke-c is queued with a delay; once the fault is gone it reads the cluster and refreshes.
    spokeC?.faults.clear();
    stack.queues.push.advance(60_000);
    for (let i = 0; i < 200; i++) {
      rollout = (await stack.get(`/rollouts/${sha}`)).body as Record<string, unknown>;
      const done = (rollout.apps as AppOut[]).filter((a) => a.cluster === 'spoke-c' && a.state === 'synced');
      if (done.length > 0 && rollout.status === 'partial') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rollout.clusterErrors).toEqual({});
    expect(
      (rollout.apps as AppOut[]).find((a) => a.cluster === 'spoke-c' && a.name === 'platform-shared')?.state,
    ).toBe('synced');
  }, 90_000);

  it('lists each kind once per cluster for one push', async () => {
    const { sha, delivery } = await commitWebChange();
    const servers = [...(stack.world?.fleet.servers.values() ?? [])];
    // Wait until the earlier tests' track chains have gone quiet, so only this push's LISTs are counted.
    for (let quiet = 0; quiet < 20; quiet++) {
      for (const server of servers) server.requests.reset();
      await new Promise((r) => setTimeout(r, 1500));
      if (servers.every((s) => s.requests.count({ verb: 'list' }) === 0)) break;
    }
    const event: PushEvent = {
      provider: 'github',
      deliveryId: `direct-${sha}`,
      repo: {
        fullName: 'example/platform',
        webUrl: stack.world?.repoUrl('platform') ?? '',
        urls: [stack.world?.repoUrl('platform') ?? ''],
        defaultBranch: 'main',
      },
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: JSON.parse(delivery.body).before,
      after: sha,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'Demo Dev' },
      commitTitle: 'direct',
      changedFiles: { known: true, files: ['apps/web/base/deployment.yaml'] },
      receivedAt: new Date().toISOString(),
    };
    // The work items the plan would send, run here directly (tracking starts a second later).
    await Promise.all(
      ['hub', 'spoke-c'].map((cluster) =>
        stack.app.fanout({ type: 'cluster', trigger: 'webhook', event, cluster, attempt: 0 }),
      ),
    );
    const hub = stack.world?.fleet.servers.get('hub');
    const spokeC = stack.world?.fleet.servers.get('spoke-c');
    expect(hub?.requests.count({ verb: 'list', resource: 'applications' })).toBe(1);
    expect(hub?.requests.count({ verb: 'list', resource: 'applicationsets' })).toBe(1);
    expect(spokeC?.requests.count({ verb: 'list', resource: 'applications' })).toBe(1);
    expect(spokeC?.requests.count({ verb: 'list', resource: 'gitrepositories' })).toBe(1);
  }, 90_000);

  it('skips an Application with a malformed spec with a recorded reason and refreshes the others', async () => {
    const hub = stack.world?.fleet.servers.get('hub');
    hub?.store.create(APPLICATIONS, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'broken', namespace: 'argocd' },
      spec: {
        project: 'x',
        source: { repoURL: stack.world?.repoUrl('platform'), path: 42, targetRevision: 'main' },
      },
    });
    const { sha, delivery } = await commitWebChange();
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    // The hub's decisions are what this is about: wait for them, not for every app's sync to end.
    type Decisions = { decisionRecords?: { name: string; decision: string; detail?: string }[] };
    let records: NonNullable<Decisions['decisionRecords']> = [];
    for (let i = 0; i < 600 && !records.some((d) => d.name === 'web-spoke-a'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      records =
        ((await stack.get(`/rollouts/${sha}?include=decisions`)).body as Decisions).decisionRecords ?? [];
    }
    expect(records.find((d) => d.name === 'broken')).toMatchObject({
      decision: 'error',
      detail: expect.stringContaining('path'),
    });
    expect(records.find((d) => d.name === 'web-spoke-a')?.decision).toBe('refreshed');
  }, 90_000);
});
