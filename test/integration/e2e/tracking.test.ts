import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { commitAndSign } from '../../helpers/world-push.js';

interface AppOut {
  cluster: string;
  name: string;
  state: string;
  refreshedAt?: string;
  finishedAt?: string;
  message?: string;
}

const OUTCOMES = {
  'track-ok': { outcome: 'succeed', state: 'synced' },
  'track-fail': { outcome: 'fail', state: 'failed' },
  'track-degrade': { outcome: 'degrade', state: 'degraded' },
  'track-manual': { outcome: 'succeed', state: 'out-of-sync', manual: true },
  'track-hang': { outcome: 'hang', state: 'timeout' },
} as const;

describe('following every sync to its end', () => {
  let stack: TestStack;
  let pushes = 0;

  beforeAll(async () => {
    stack = await startTestStack({ TRACK_DEADLINE_SECONDS: '12' });
    const world = stack.world;
    const hub = world?.fleet.servers.get('hub');
    for (const [name, spec] of Object.entries(OUTCOMES)) {
      hub?.store.create(APPLICATIONS, {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name, namespace: 'argocd', annotations: { 'sim.gitops-sync.dev/outcome': spec.outcome } },
        spec: {
          project: 'e2e',
          source: { repoURL: world?.repoUrl('platform'), path: 'apps/e2e-track', targetRevision: 'main' },
          destination: { name: 'spoke-a', namespace: 'track' },
          ...('manual' in spec ? {} : { syncPolicy: { automated: {} } }),
        },
      });
    }
  }, 60_000);
  afterAll(async () => stack?.close());

  async function push(): Promise<string> {
    pushes += 1;
    const change = { 'apps/e2e-track/config.yaml': `revision: ${pushes}\n` };
    const { commit, delivery } = await commitAndSign(stack, change, `track ${pushes}`);
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    return commit.after;
  }

  const ours = (rollout: Record<string, unknown>) =>
    (rollout.apps as AppOut[]).filter((a) => a.name.startsWith('track-'));

  it('ends each app in its state: synced, failed, degraded, out-of-sync and timeout at the deadline', async () => {
    const sha = await push();
    const rollout = await stack.rolloutWhenDone(sha, 40_000);
    const states = Object.fromEntries(ours(rollout).map((a) => [a.name, a.state]));
    expect(states).toEqual(Object.fromEntries(Object.entries(OUTCOMES).map(([name, o]) => [name, o.state])));
    expect(rollout.status).toBe('partial');
    const hang = ours(rollout).find((a) => a.name === 'track-hang');
    expect(hang?.message).toMatch(/^deadline passed/);
    // Argo CD's times have one-second precision; ours have milliseconds.
    for (const app of ours(rollout)) {
      const refreshedSecond = Math.floor(Date.parse(app.refreshedAt ?? '') / 1000) * 1000;
      expect(Date.parse(app.finishedAt ?? '')).toBeGreaterThanOrEqual(refreshedSecond);
    }

    const history = await stack.get('/apps/hub/argocd/track-fail/history');
    expect(history.status).toBe(200);
    expect((history.body as { items: { sha: string; state: string }[] }).items[0]).toMatchObject({
      sha,
      state: 'failed',
    });

    // The records are written before Slack is told, so the message catches up a moment after the API.
    const short = sha.slice(0, 7);
    const counts = rollout.counts as Record<string, number>;
    const matchesRecords = (text: string) =>
      Object.entries(counts).every(([state, n]) => text.includes(`${n} ${state}`));
    let messages = (stack.slack?.messages() ?? []).filter((m) => m.text.includes(short));
    for (let i = 0; i < 100 && !matchesRecords(JSON.stringify(messages[0]?.blocks)); i++) {
      await new Promise((r) => setTimeout(r, 50));
      messages = (stack.slack?.messages() ?? []).filter((m) => m.text.includes(short));
    }
    expect(messages).toHaveLength(1);
    const text = JSON.stringify(messages[0]?.blocks);
    for (const [state, count] of Object.entries(counts)) expect(text).toContain(`${count} ${state}`);
  }, 60_000);

  it('keeps records consistent when several track messages for one rollout run at once', async () => {
    const sha = await push();
    // Wait until fan-out recorded the apps, then race five pollers for every poll until the end.
    let rollout = (await stack.get(`/rollouts/${sha}`)).body as Record<string, unknown>;
    const recorded = () =>
      Array.isArray(rollout.apps) && ours(rollout).length === Object.keys(OUTCOMES).length;
    for (let i = 0; i < 200 && !recorded(); i++) {
      await new Promise((r) => setTimeout(r, 50));
      rollout = (await stack.get(`/rollouts/${sha}`)).body as Record<string, unknown>;
    }
    const clusters = [...new Set(ours(rollout).map((a) => a.cluster))];
    for (let poll = 0; poll < 200; poll++) {
      await Promise.all(
        clusters.flatMap((cluster) =>
          Array.from({ length: 5 }, () => stack.app.track({ type: 'track', cluster, attempt: 1 })),
        ),
      );
      rollout = (await stack.get(`/rollouts/${sha}`)).body as Record<string, unknown>;
      if (rollout.status !== 'in-progress' && rollout.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const states = Object.fromEntries(ours(rollout).map((a) => [a.name, a.state]));
    expect(states).toEqual(Object.fromEntries(Object.entries(OUTCOMES).map(([name, o]) => [name, o.state])));
    const apps = rollout.apps as AppOut[];
    const counted: Record<string, number> = {};
    for (const a of apps) counted[a.state] = (counted[a.state] ?? 0) + 1;
    expect(rollout.counts).toEqual(counted);
    expect((stack.slack?.messages() ?? []).filter((m) => m.text.includes(sha.slice(0, 7)))).toHaveLength(1);
  }, 60_000);
});
