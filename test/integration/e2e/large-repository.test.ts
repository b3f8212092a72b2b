import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { signedWorldPush } from '../../helpers/world-push.js';

const APPS = 3000;
/** Names near Kubernetes' 253-character limit: the decisions of one push pass DynamoDB's 400 KB item limit. */
const longName = (i: number) =>
  `${'service-with-a-long-descriptive-name-'.repeat(6)}${String(i).padStart(5, '0')}`;

describe('one repository with 3,000 path-filtered apps on one hub', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
    const hub = stack.world?.fleet.servers.get('hub');
    for (let i = 0; i < APPS; i++) {
      hub?.store.create(APPLICATIONS, {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: {
          name: longName(i),
          namespace: 'argocd',
          annotations: { 'argocd.argoproj.io/manifest-generate-paths': `/services/${i}` },
        },
        spec: {
          project: 'default',
          source: {
            repoURL: stack.world?.repoUrl('platform'),
            path: `services/${i}`,
            targetRevision: 'main',
          },
          destination: { name: 'in-cluster', namespace: `svc-${i}` },
        },
      });
    }
  }, 120_000);
  afterAll(async () => stack?.close());

  it('lists the hub page by page, records every decision, and refreshes only the apps the push touched', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const push = defaultPush();
    const commit = await world.commit('platform', push.changes, push.message);
    const hub = world.fleet.servers.get('hub');
    hub?.requests.reset();
    const delivery = signedWorldPush(world, commit, push.message);
    expect((await stack.post('/webhooks/github', delivery)).status).toBe(202);
    const rollout = await stack.rolloutWhenDone(commit.after, 90_000);
    expect((rollout.clusters as Record<string, string>).hub).toBe('done');
    expect((rollout.decisions as Record<string, number>)['paths-miss']).toBeGreaterThanOrEqual(APPS);
    const { body } = await stack.get(`/rollouts/${commit.after}?include=decisions`);
    const records = (body as { decisionRecords: { name: string; decision: string }[] }).decisionRecords;
    const ours = records.filter((d) => d.name.startsWith('service-with-a-long'));
    expect(ours).toHaveLength(APPS);
    expect(new Set(ours.map((d) => d.decision))).toEqual(new Set(['paths-miss']));
    // Pages of at most 500: the hub's Applications took several LIST calls, none of them patched.
    expect(hub?.requests.count({ verb: 'list', resource: 'applications' })).toBeGreaterThanOrEqual(
      APPS / 500,
    );
    const patched = hub?.requests.appliedPatches('applications') ?? new Map();
    expect([...patched.keys()].filter((n) => n.startsWith('service-with-a-long'))).toEqual([]);
  }, 120_000);
});
