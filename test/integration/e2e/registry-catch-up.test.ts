import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalEcr, startLocalEcr } from '../../../infra/local/ecr-server.js';
import { createOciRegistry } from '../../../infra/simulator/oci-registry.js';
import { ecrImagesOf } from '../../../infra/simulator/oci-registry-ecr.js';
import { createMapResolver } from '../../../infra/simulator/revision-resolver.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import type { RegistryCatchUpReport } from '../../../lib/reconcile/missed-images.js';
import type { TestStack } from '../../helpers/local-stack.js';
import { ecrPushEvent, fleetApplication, signedJson, startFleetStack } from '../../helpers/world-push.js';

/**
 * A chart pushed to ECR whose EventBridge event never came: the scheduled pass reads the repositories the
 * fleet's OCI and Helm OCI sources use (DescribeImages against the local double, backed by the same
 * registry state the simulated Argo CD resolves revisions from), starts the rollout the push would have
 * started, and a second pass (and the event arriving late) starts nothing new.
 */
const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const HOST = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com`;
const SECRET = 'ecr-events-secret-catch-up-9c41d0e2';

/** The simulated fleet's registry: Argo CD resolves from it, the ECR double lists it. */
const registry = createOciRegistry();
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0').replace(/^0/, 'e')}`;
function tag(repository: string, name: string, to: string) {
  registry.push({
    repository: `${HOST}/${repository}`,
    tag: name,
    digest: to,
    pushedAt: new Date(Date.now() - 60_000),
  });
}

const application = (name: string, source: Record<string, unknown>) => fleetApplication(name, { source });

const APPS = [
  application('web-oci', { repoURL: `oci://${HOST}/charts/web`, targetRevision: '^1.0.0', path: '.' }),
  application('web-helm', { repoURL: `${HOST}/charts`, chart: 'web', targetRevision: '1.x' }),
  application('web-pinned', { repoURL: `oci://${HOST}/charts/web`, targetRevision: '1.3.0' }),
  application('api-stable', { repoURL: `oci://${HOST}/charts/api`, targetRevision: 'stable' }),
  // A repository outside ECR_REPOSITORY_ARNS: never described.
  application('tools', { repoURL: `oci://${HOST}/tools/cli`, targetRevision: 'latest' }),
];

describe('the ECR catch-up through reconcile', () => {
  let fleet: SimulatedFleet;
  let stack: TestStack;
  let ecr: LocalEcr;
  let world: Awaited<ReturnType<typeof startFleetStack>>;
  beforeAll(async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    tag('charts/web', '1.3.0', digest(1));
    tag('charts/api', 'stable', digest(2));
    tag('tools/cli', 'latest', digest(3));
    ecr = await startLocalEcr({ state: ecrImagesOf(registry, REGION), accountId: ACCOUNT });
    fleet = await startSimulatedFleet({
      clusters: [{ name: 'hub', argocd: { namespace: 'argocd' } }],
      objects: { hub: APPS },
      registry,
      // No Git source here: every app is on the registry.
      resolveRevision: createMapResolver({}),
      controller: { tickMs: 20, syncMs: 60, healthMs: 60, retryMs: 60 },
    });
    world = await startFleetStack(fleet, {
      ECR_EVENTS_SECRET: SECRET,
      ECR_EVENTS_ACCOUNT: ACCOUNT,
      ECR_EVENTS_REGION: REGION,
      ECR_ENDPOINT: ecr.endpoint,
      ECR_REPOSITORY_ARNS: `arn:aws:ecr:${REGION}:${ACCOUNT}:repository/charts/*`,
      MISSED_WEBHOOK_GRACE_SECONDS: '0',
    });
    stack = world.stack;
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await world?.close();
    await fleet?.close();
    await ecr?.close();
  });

  const pass = async () => (await stack.app.reconcile()).registryCatchUp as RegistryCatchUpReport;
  const live = (name: string) => {
    const object = fleet.servers.get('hub')?.store.get(APPLICATIONS, 'argocd', name);
    return (object?.status as { sync?: { revision?: string } } | undefined)?.sync?.revision;
  };

  it('catches a push whose event never came, once, and takes the late event as a duplicate', async () => {
    // Everything synced at what its tag names: a pass starts nothing.
    const deadline = Date.now() + 20_000;
    while (live('web-oci') !== digest(1) || live('api-stable') !== digest(2)) {
      if (Date.now() > deadline) throw new Error('the simulated Argo CD never synced the apps');
      await new Promise((r) => setTimeout(r, 50));
    }
    const quiet = await pass();
    expect(quiet).toMatchObject({ described: 2, notConfigured: 1, skipped: [], images: [] });

    // `helm push` of 1.4.0 and `docker push` moving `stable`: no EventBridge event is delivered.
    tag('charts/web', '1.4.0', digest(4));
    tag('charts/api', 'stable', digest(5));
    const caught = await pass();
    expect(caught.images.map((i) => [i.repository, i.tag, i.digest, i.apps, i.action])).toEqual([
      [`${HOST}/charts/api`, 'stable', digest(5), 1, 'enqueued'],
      [`${HOST}/charts/web`, '1.4.0', digest(4), 2, 'enqueued'],
    ]);
    const hex = digest(4).slice('sha256:'.length);
    const rollout = await stack.rolloutWhenDone(hex);
    expect(rollout).toMatchObject({
      trigger: 'registry',
      repo: `${HOST}/charts/web`,
      ref: '1.4.0',
      status: 'succeeded',
    });
    const apps = rollout.apps as { name: string; state: string }[];
    expect(Object.fromEntries(apps.map((a) => [a.name, a.state]))).toEqual({
      'web-oci': 'synced',
      'web-helm': 'synced',
    });
    expect(live('web-oci')).toBe(digest(4));
    expect(live('web-helm')).toBe('1.4.0');
    await stack.rolloutWhenDone(digest(5).slice('sha256:'.length));

    // A second pass: nothing new to start.
    const again = await pass();
    expect(again.images.filter((i) => i.action === 'enqueued')).toEqual([]);
    // The event arriving late is the same delivery (digest and tag): no second rollout.
    const late = await stack.post(
      '/webhooks/ecr',
      signedJson(
        ecrPushEvent({
          id: 'evt-late-web-140',
          account: ACCOUNT,
          region: REGION,
          repository: 'charts/web',
          tag: '1.4.0',
          digest: digest(4),
        }),
        SECRET,
      ),
    );
    expect(late).toEqual({ status: 200, body: { duplicate: true } });
    // Only the configured repositories were described, with the real API's paging parameters.
    const described = ecr.requests.map((r) => r.body.repositoryName);
    expect(new Set(described)).toEqual(new Set(['charts/web', 'charts/api']));
    expect(ecr.requests.every((r) => r.body.maxResults === 1000 && r.region === REGION)).toBe(true);
  }, 60_000);
});
