import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_GITHUB_SECRET } from '../../../infra/local/stack.js';
import { createOciRegistry } from '../../../infra/simulator/oci-registry.js';
import { createMapResolver } from '../../../infra/simulator/revision-resolver.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { TestStack } from '../../helpers/local-stack.js';
import { ecrPushEvent, fleetApplication, signedJson, startFleetStack } from '../../helpers/world-push.js';

/**
 * A test-only world: Argo CD Applications on OCI and Helm OCI sources of one ECR registry (and one Git app)
 * on two simulated clusters. The simulated Argo CD resolves an OCI source to the digest its tag points at
 * and a Helm OCI source to the chart version, from the simulator's `registry`, which each test pushes to
 * before it delivers the signed EventBridge event, as ECR would after a `docker push` / `helm push`.
 */
const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const HOST = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com`;
const SECRET = 'ecr-events-secret-e2e-7215ee9c7d9dc229';
const HARBOR_AUTH = 'Basic aGFyYm9yOmU5YzFmMmQ4YTc=';

/** The simulator's registry: each test pushes to it before it delivers the registry's event. */
const registry = createOciRegistry();
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0').replace(/^0/, 'd')}`;
const GIT_HEAD = 'a1'.repeat(20);

function tag(repository: string, name: string, to: string, host = HOST) {
  registry.push({ repository: `${host}/${repository}`, tag: name, digest: to });
}

/** The Git sources' refs (the registry sources are the simulated Argo CD's own to resolve). */
const git = createMapResolver({
  'https://github.com/acme/gitops': { defaultBranch: 'main', branches: { main: GIT_HEAD } },
  'https://github.com/acme/values': { defaultBranch: 'main', branches: { main: GIT_HEAD } },
});

const application = fleetApplication;

const HUB_APPS = [
  application('web-oci', {
    source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^1.0.0', path: '.' },
  }),
  application('web-helm', { source: { repoURL: `${HOST}/charts`, chart: 'web', targetRevision: '1.x' } }),
  application('api-oci', { source: { repoURL: `oci://${HOST}/charts/api`, targetRevision: '^1.0.0' } }),
  application('web-ghcr', { source: { repoURL: 'oci://ghcr.io/acme/charts/web', targetRevision: '^2.0.0' } }),
  application('web-harbor', {
    source: { repoURL: 'harbor.example.com/platform/charts', chart: 'web', targetRevision: '3.x' },
  }),
  application('web-git', {
    source: { repoURL: 'https://github.com/acme/gitops', path: 'apps/web', targetRevision: 'main' },
  }),
];
const SPOKE_APPS = [
  application('web-multi', {
    sources: [
      { repoURL: 'https://github.com/acme/values', targetRevision: 'main', ref: 'values' },
      { repoURL: `oci://${HOST}/charts/web`, targetRevision: '>=1.0.0 <2.0.0' },
    ],
  }),
  application('web-pinned', { source: { repoURL: `oci://${HOST}/charts/web`, targetRevision: '1.3.0' } }),
];

const ecrEvent = (id: string, repository: string, imageTag: string, imageDigest: string) =>
  ecrPushEvent({ id, account: ACCOUNT, region: REGION, repository, tag: imageTag, digest: imageDigest });
const signed = (body: string, secret = SECRET) => signedJson(body, secret);

describe('a signed ECR image push through the local stack', () => {
  let fleet: SimulatedFleet;
  let stack: TestStack;
  let world: Awaited<ReturnType<typeof startFleetStack>>;
  beforeAll(async () => {
    tag('charts/web', '1.3.0', digest(1));
    tag('charts/api', '1.0.0', digest(2));
    fleet = await startSimulatedFleet({
      clusters: [
        { name: 'hub', argocd: { namespace: 'argocd' } },
        { name: 'spoke', argocd: { namespace: 'argocd' } },
      ],
      objects: { hub: HUB_APPS, spoke: SPOKE_APPS },
      resolveRevision: git,
      registry,
      controller: { tickMs: 20, syncMs: 60, healthMs: 60, retryMs: 60 },
    });
    world = await startFleetStack(fleet, {
      ECR_EVENTS_SECRET: SECRET,
      ECR_EVENTS_ACCOUNT: ACCOUNT,
      ECR_EVENTS_REGION: REGION,
      HARBOR_WEBHOOK_SECRET: HARBOR_AUTH,
      // Freezes reach a container within 1 s here, not the default 10 s (the freeze test waits that out).
      FREEZE_CACHE_SECONDS: '1',
    });
    stack = world.stack;
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await fleet?.close();
  });

  it('refreshes exactly the apps on that chart whose revision follows the tag, each synced at the push', async () => {
    const pushed = digest(3);
    const hex = pushed.slice('sha256:'.length);
    tag('charts/web', '1.4.0', pushed);
    const answer = await stack.post(
      '/webhooks/ecr',
      signed(ecrEvent('evt-web-140', 'charts/web', '1.4.0', pushed)),
    );
    expect(answer).toEqual({ status: 202, body: { delivery: 'evt-web-140', rollout: hex } });

    const rollout = await stack.rolloutWhenDone(hex);
    expect(rollout).toMatchObject({
      sha: hex,
      trigger: 'registry',
      repo: `${HOST}/charts/web`,
      ref: '1.4.0',
      status: 'succeeded',
    });
    const apps = rollout.apps as { cluster: string; name: string; state: string; revision?: string }[];
    expect(Object.fromEntries(apps.map((a) => [`${a.cluster}/${a.name}`, a.state]))).toEqual({
      'hub/web-oci': 'synced',
      'hub/web-helm': 'synced',
      'spoke/web-multi': 'synced',
    });
    expect(apps.every((a) => a.revision === hex)).toBe(true);
    expect(await stack.get(`/rollouts/${hex.slice(0, 12)}`)).toMatchObject({
      status: 200,
      body: { sha: hex },
    });
    // Argo CD reports the digest for the OCI source and the chart version for the Helm one.
    const live = (name: string) => {
      const object = fleet.servers.get('hub')?.store.get(APPLICATIONS, 'argocd', name);
      return (object?.status as { sync?: { revision?: string } } | undefined)?.sync?.revision;
    };
    expect(live('web-oci')).toBe(pushed);
    expect(live('web-helm')).toBe('1.4.0');
    // The pinned app follows 1.3.0: matched, not refreshed, and the page says why.
    const page = String((await stack.get(`/ui/rollouts/${hex}`)).body);
    expect(page).toContain('web-pinned');
    expect(page).toContain('revision-miss');
    expect(page).not.toContain('api-oci');
  }, 40_000);

  it('takes a GHCR container version published (GitHub `package` event) as a push of that image', async () => {
    const pushed = digest(7);
    const hex = pushed.slice('sha256:'.length);
    tag('acme/charts/web', '2.1.0', pushed, 'ghcr.io');
    const body = JSON.stringify({
      action: 'published',
      package: {
        name: 'charts/web',
        namespace: 'acme',
        package_type: 'container',
        owner: { login: 'acme' },
        package_version: {
          version: pushed,
          container_metadata: { tag: { name: '2.1.0', digest: pushed } },
        },
        registry: { url: 'https://ghcr.io', type: 'container' },
      },
      sender: { login: 'release-bot' },
    });
    const headers = {
      'content-type': 'application/json',
      'x-github-event': 'package',
      'x-github-delivery': 'ghcr-delivery-1',
      'x-hub-signature-256': `sha256=${createHmac('sha256', LOCAL_GITHUB_SECRET).update(body).digest('hex')}`,
    };
    expect(await stack.post('/webhooks/github', { headers, body })).toEqual({
      status: 202,
      body: { delivery: 'ghcr-delivery-1', rollout: hex },
    });
    const rollout = await stack.rolloutWhenDone(hex);
    expect(rollout).toMatchObject({ trigger: 'registry', repo: 'ghcr.io/acme/charts/web', ref: '2.1.0' });
    const apps = rollout.apps as { cluster: string; name: string; state: string }[];
    expect(apps.map((a) => `${a.cluster}/${a.name}:${a.state}`)).toEqual(['hub/web-ghcr:synced']);
    // A package that is not a container (npm) is not an image push.
    const npm = JSON.stringify({ action: 'published', package: { name: 'x', package_type: 'npm' } });
    const npmHeaders = {
      ...headers,
      'x-github-delivery': 'ghcr-delivery-2',
      'x-hub-signature-256': `sha256=${createHmac('sha256', LOCAL_GITHUB_SECRET).update(npm).digest('hex')}`,
    };
    expect(await stack.post('/webhooks/github', { headers: npmHeaders, body: npm })).toMatchObject({
      status: 202,
      body: { ignored: expect.stringContaining('not a container image') },
    });
  }, 40_000);

  it('takes a Harbor PUSH_ARTIFACT (its Authorization header checked) as a push of that chart', async () => {
    const pushed = digest(9);
    const hex = pushed.slice('sha256:'.length);
    tag('platform/charts/web', '3.2.0', pushed, 'harbor.example.com');
    const body = JSON.stringify({
      type: 'PUSH_ARTIFACT',
      occur_at: 1764676800,
      operator: 'ci-robot',
      event_data: {
        resources: [
          { digest: pushed, tag: '3.2.0', resource_url: 'harbor.example.com/platform/charts/web:3.2.0' },
        ],
        repository: { name: 'charts/web', namespace: 'platform', repo_full_name: 'platform/charts/web' },
      },
    });
    const post = (authorization: string) =>
      stack.post('/webhooks/harbor', {
        headers: { 'content-type': 'application/json', authorization },
        body,
      });
    expect((await post('Basic d3Jvbmc=')).status).toBe(401);
    expect(await post(HARBOR_AUTH)).toMatchObject({ status: 202, body: { rollout: hex } });
    const rollout = await stack.rolloutWhenDone(hex);
    expect(rollout).toMatchObject({
      trigger: 'registry',
      repo: 'harbor.example.com/platform/charts/web',
      ref: '3.2.0',
    });
    const apps = rollout.apps as { cluster: string; name: string; state: string }[];
    expect(apps.map((a) => `${a.cluster}/${a.name}:${a.state}`)).toEqual(['hub/web-harbor:synced']);
    // The same body again is the same delivery.
    expect(await post(HARBOR_AUTH)).toEqual({ status: 200, body: { duplicate: true } });
  }, 40_000);

  it('answers 401 to a forged event and starts no rollout', async () => {
    const pushed = digest(5);
    const hex = pushed.slice('sha256:'.length);
    const answer = await stack.post(
      '/webhooks/ecr',
      signed(ecrEvent('evt-forged', 'charts/web', '9.9.9', pushed), 'not-the-secret'),
    );
    expect(answer.status).toBe(401);
    expect((await stack.get(`/rollouts/${hex}`)).status).toBe(404);
  });

  it('takes a duplicate event of the same digest and tag as one rollout', async () => {
    const pushed = digest(6);
    const hex = pushed.slice('sha256:'.length);
    tag('charts/api', '1.1.0', pushed);
    const first = await stack.post(
      '/webhooks/ecr',
      signed(ecrEvent('evt-api-1', 'charts/api', '1.1.0', pushed)),
    );
    expect(first.status).toBe(202);
    const again = await stack.post(
      '/webhooks/ecr',
      signed(ecrEvent('evt-api-2', 'charts/api', '1.1.0', pushed)),
    );
    expect(again).toEqual({ status: 200, body: { duplicate: true } });
    const rollout = await stack.rolloutWhenDone(hex);
    expect(rollout).toMatchObject({ trigger: 'registry', status: 'succeeded' });
    expect((rollout.apps as { name: string }[]).map((a) => a.name)).toEqual(['api-oci']);
    const listed = await stack.get(`/rollouts?repo=${encodeURIComponent(`${HOST}/charts/api`)}`);
    expect(listed.status).toBe(200);
    expect((listed.body as { items: { sha: string }[] }).items.filter((r) => r.sha === hex)).toHaveLength(1);
  }, 40_000);

  it('holds a push of an image repository frozen by its oci:// name, and only that repository', async () => {
    const created = await fetch(`${stack.url}/freezes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ repo: `oci://${HOST}/charts/api`, reason: 'api chart under review' }),
    });
    expect(created.status).toBe(201);
    const freeze = (await created.json()) as { id: string; repo: string };
    expect(freeze.repo).toBe(`${HOST}/charts/api`);
    try {
      // A freeze a container already read reaches it within its cache (FREEZE_CACHE_SECONDS): wait it out.
      await new Promise((r) => setTimeout(r, 1_500));
      const pushed = digest(8);
      const hex = pushed.slice('sha256:'.length);
      tag('charts/api', '1.2.0', pushed);
      expect(
        (await stack.post('/webhooks/ecr', signed(ecrEvent('evt-api-120', 'charts/api', '1.2.0', pushed))))
          .status,
      ).toBe(202);
      const deadline = Date.now() + 15_000;
      let api: { state?: string; message?: string } | undefined;
      while (api?.state !== 'held' && Date.now() < deadline) {
        const answer = await stack.get(`/rollouts/${hex}`);
        api = (
          ((answer.body as { apps?: unknown[] })?.apps ?? []) as {
            name: string;
            state?: string;
            message?: string;
          }[]
        ).find((a) => a.name === 'api-oci');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(api?.state).toBe('held');
      expect(api?.message).toMatch(/frozen: api chart under review/);
      // The frozen repository's app was not refreshed: Argo CD still runs the earlier digest.
      const live = fleet.servers.get('hub')?.store.get(APPLICATIONS, 'argocd', 'api-oci');
      expect((live?.status as { sync?: { revision?: string } } | undefined)?.sync?.revision).toBe(digest(6));
    } finally {
      await fetch(`${stack.url}/freezes/${freeze.id}`, { method: 'DELETE' });
    }
  }, 40_000);

  it('ignores (202) an event of another account', async () => {
    const body = ecrEvent('evt-foreign', 'charts/web', '1.4.0', digest(7)).replace(ACCOUNT, '210987654321');
    const answer = await stack.post('/webhooks/ecr', signed(body));
    expect(answer.status).toBe(202);
    expect((answer.body as { ignored: string }).ignored).toContain('another account');
  });
});
