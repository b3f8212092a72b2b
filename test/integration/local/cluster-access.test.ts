import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClusterAccess } from '../../../infra/local/cluster-access.js';
import { githubPush } from '../../../infra/local/sample-push.js';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { defaultPush } from '../../../infra/simulator/default-push.js';
import { runCli } from '../../../lib/cli/main.js';
import { checkFleetFile } from '../../../lib/fleet/fleet-file.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';

let stack: TestStack;
let dir: string;

beforeAll(async () => {
  stack = await startTestStack();
  dir = await mkdtemp(join(tmpdir(), 'cluster-access-'));
}, 60_000);

afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the local stack's cluster access files", () => {
  it('write a kubeconfig whose contexts read and change the simulated clusters with their tokens', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const { kubeconfig } = writeClusterAccess(dir, world.fleetConfig, stack.url);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    expect(kc.getContexts().map((c) => c.name)).toEqual(world.fleet.clusters.map((c) => c.name));
    kc.setCurrentContext('hub');
    const server = kc.getCurrentCluster()?.server ?? '';
    expect(server).toBe(world.fleet.clusters.find((c) => c.name === 'hub')?.server);
    // The library puts the context's credentials on the request, as it does for its own clients.
    const options: { headers: Record<string, string> } = { headers: {} };
    await kc.applyToHTTPSOptions(options);
    expect(options.headers.Authorization).toMatch(/^Bearer sim-hub-/);
    const init = { headers: options.headers };
    const apps = `${server}/apis/argoproj.io/v1alpha1/namespaces/argocd/applications`;
    const list = (await (await fetch(apps, init)).json()) as { items: unknown[] };
    expect(list.items.length).toBeGreaterThan(0);
    const patchWith = (headers: Record<string, string>) =>
      fetch(`${apps}/web-spoke-a`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ metadata: { labels: { 'kubeconfig-test': 'yes' } } }),
      });
    expect((await patchWith(init.headers)).status).toBe(200);
    // The server does check tokens: the kubeconfig's is accepted because it is the cluster's own.
    expect((await patchWith({ Authorization: 'Bearer sim-hub-wrong' })).status).toBe(401);
  });

  it('write a fleet file for the simulated clusters that validates under the local rules only', () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const { fleetFile } = writeClusterAccess(dir, world.fleetConfig, stack.url);
    const text = readFileSync(fleetFile, 'utf8');
    const local = checkFleetFile(text, fleetFile, { mode: 'local' });
    expect(local.ok ? local.fleet.clusters.map((c) => c.server) : local.problems).toEqual(
      world.fleet.clusters.map((c) => c.server),
    );
    expect(checkFleetFile(text, fleetFile).ok).toBe(false);
  });
});

describe('gitops-sync rollout against the local stack', () => {
  it('prints the finished rollout of a real push as a table', async () => {
    const world = stack.world;
    if (world === undefined) throw new Error('no simulated world');
    const push = defaultPush();
    const commit = await world.commit(push.repository, push.changes, push.message, push.branch);
    const sample = {
      repoUrl: world.repoUrl('platform'),
      fullName: 'example/platform',
      branch: push.branch,
      before: commit.before,
      after: commit.after,
      changed: commit.changed,
      message: push.message,
    };
    expect((await stack.post('/webhooks/github', githubPush(sample, LOCAL_GITHUB_SECRET))).status).toBe(202);
    await stack.rolloutWhenDone(commit.after);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['rollout', commit.after, '--url', stack.url], {
      env: {},
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(new RegExp(`^rollout ${commit.after} .* status partial  trigger webhook`));
    expect(out[1]).toMatch(/^ {2}CLUSTER +OBJECT +(DESTINATION +)?STATE +DETAIL$/);
    const row = (name: string) => out.find((l) => new RegExp(`Application/${name} `).test(l)) ?? '';
    expect(row('web-spoke-a')).toMatch(/^ {2}hub +Application\/web-spoke-a .*synced/);
    expect(row('web-spoke-b')).toMatch(/blocked/);
    expect(row('web-e2e')).toMatch(/^ {2}spoke-c .*failed/);
    expect(out.at(-1)).toMatch(/^counts: .*synced \d+/);
  }, 60_000);
});
