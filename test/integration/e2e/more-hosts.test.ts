import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { SeedObject } from '../../../infra/simulator/default-fleet.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { canonicalRepoKey } from '../../../lib/matching/repo-url.js';
import { type ProviderApiDouble, startProviderApi } from '../../helpers/git-provider-api.js';
import { azureDiffs, bitbucketDiffstatPage } from '../../helpers/host-api-answers.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import { hostFixture, SECRETS, type SignedDelivery, sign } from '../../unit/webhook/hosts.js';

/**
 * A test-only world: Argo CD Applications whose repoURLs use each host's own URL forms (SSH, scp-style,
 * legacy hosts), on two simulated clusters. The simulated controller resolves their revisions from `heads`,
 * which each test moves before it delivers the host's signed push, as the host would after a `git push`.
 */
const REPOS = {
  bitbucket: 'https://bitbucket.org/acme/platform',
  server: 'https://bbs.acme.test/scm/plat/deploy.git',
  azure: 'https://dev.azure.com/acme/platform/_git/deploy',
  gitea: 'https://gitea.acme.test/acme/deploy',
  github: 'https://github.com/acme/gitops',
} as const;

const heads = new Map<string, string>();
const headKey = (repoURL: string, revision: string) => `${canonicalRepoKey(repoURL)}@${revision}`;
const sha = (n: number) => n.toString(16).padStart(40, '0').replace(/^0/, 'e');

function application(
  name: string,
  repoURL: string,
  options: { paths?: string; revision?: string } = {},
): SeedObject {
  return {
    resource: APPLICATIONS,
    object: {
      metadata: {
        name,
        namespace: 'argocd',
        annotations:
          options.paths === undefined ? {} : { 'argocd.argoproj.io/manifest-generate-paths': options.paths },
      },
      spec: {
        project: 'default',
        source: { repoURL, path: 'apps', targetRevision: options.revision ?? 'main' },
        destination: { name: 'in-cluster', namespace: 'apps' },
        syncPolicy: { automated: { prune: true, selfHeal: true } },
      },
    },
  };
}

const HUB_APPS = [
  application('bb-web', 'git@bitbucket.org:acme/platform.git', { paths: '/apps/web' }),
  application('bb-api', 'https://jdoe@bitbucket.org/acme/platform.git', { paths: '/apps/api' }),
  application('bbs-deploy', 'ssh://git@bbs.acme.test:7999/plat/deploy.git'),
  application('az-web', 'git@ssh.dev.azure.com:v3/acme/platform/deploy', { paths: '/web' }),
  application('az-legacy', 'https://acme.visualstudio.com/platform/_git/deploy', { paths: '/db' }),
];
const SPOKE_APPS = [
  application('bb-web-spoke', 'https://bitbucket.org/acme/platform', { paths: '/apps/web' }),
  application('bbs-web', 'https://bbs.acme.test/projects/PLAT/repos/deploy/browse', { revision: 'release' }),
  application('gitea-app', 'git@gitea.acme.test:acme/deploy.git'),
  application('gh-scp', 'ssh://git@github.com:acme/gitops.git', { paths: '/clusters' }),
];

describe('a signed push from each further Git host refreshes the right apps through the local stack', () => {
  let fleet: SimulatedFleet;
  let api: ProviderApiDouble;
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    for (const [n, app] of [...HUB_APPS, ...SPOKE_APPS].entries()) {
      const source = (app.object.spec as { source: { repoURL: string; targetRevision: string } }).source;
      heads.set(headKey(source.repoURL, source.targetRevision), sha(n + 1));
    }
    fleet = await startSimulatedFleet({
      clusters: [
        { name: 'hub', argocd: { namespace: 'argocd' } },
        { name: 'spoke', argocd: { namespace: 'argocd' } },
      ],
      objects: { hub: HUB_APPS, spoke: SPOKE_APPS },
      resolveRevision: (repoURL, revision) => heads.get(headKey(repoURL, revision)),
      controller: { tickMs: 20, syncMs: 60, healthMs: 60, retryMs: 60 },
    });
    api = await startProviderApi();
    dir = await mkdtemp(join(tmpdir(), 'gitops-sync-hosts-'));
    const fleetFile = join(dir, 'fleet.yaml');
    await writeFile(
      fleetFile,
      stringify({
        clusters: fleet.clusters.map((c) => ({
          name: c.name,
          server: c.server,
          auth: { token: c.token },
          argocd: { namespace: 'argocd' },
        })),
        repositories: [
          { url: REPOS.bitbucket, token: 'bb-token', apiUrl: `${api.url}/bitbucket` },
          { url: REPOS.azure, token: 'azure-pat', apiUrl: `${api.url}/azure/acme` },
        ],
        // These repositories do not exist on this machine: the ExternalSecret preflight would only warn.
        secretPolicy: 'off',
      }),
    );
    stack = await startTestStack({
      FLEET_CONFIG: fleetFile,
      BITBUCKET_WEBHOOK_SECRET: SECRETS.bitbucket,
      BITBUCKET_SERVER_WEBHOOK_SECRET: SECRETS.bitbucketServer,
      AZURE_DEVOPS_WEBHOOK_SECRET: SECRETS.azure,
      GITEA_WEBHOOK_SECRET: SECRETS.gitea,
      GENERIC_WEBHOOK_SECRET: SECRETS.generic,
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await api?.close();
    await fleet?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** Moves the ref for every app URL form of the repository, as the push would. */
  function move(repoUrls: readonly string[], revision: string, to: string) {
    for (const url of repoUrls) heads.set(headKey(url, revision), to);
  }
  const forms = (...names: string[]) =>
    [...HUB_APPS, ...SPOKE_APPS]
      .filter((a) => names.includes(a.object.metadata.name))
      .map((a) => (a.object.spec as { source: { repoURL: string } }).source.repoURL);

  async function deliver(delivery: SignedDelivery, after: string) {
    const response = await stack.post(`/webhooks/${delivery.provider}`, {
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(response).toMatchObject({ status: 202, body: { rollout: after } });
    const rollout = await stack.rolloutWhenDone(after);
    return Object.fromEntries(
      (rollout.apps as { cluster: string; name: string; state: string }[]).map((a) => [
        `${a.cluster}/${a.name}`,
        a.state,
      ]),
    );
  }

  it('Bitbucket Cloud: the diffstat API names the files, so only the apps under them are refreshed', async () => {
    const before = heads.get(headKey(REPOS.bitbucket, 'main')) ?? '';
    const after = 'b1'.repeat(20);
    move(forms('bb-web', 'bb-api', 'bb-web-spoke'), 'main', after);
    api.answer(
      `/bitbucket/2.0/repositories/acme/platform/diffstat/${after}..${before}?topic=false&renames=true&pagelen=500`,
      {
        body: bitbucketDiffstatPage([
          { status: 'modified', old: 'apps/web/deploy.yaml', new: 'apps/web/deploy.yaml' },
        ]),
      },
    );
    const payload = hostFixture('bitbucket-repo-push');
    payload.repository = {
      ...(payload.repository as object),
      full_name: 'acme/platform',
      links: { html: { href: REPOS.bitbucket } },
    };
    const change = (payload.push as { changes: Record<string, Record<string, unknown>>[] }).changes[0];
    if (change === undefined) throw new Error('sample has no change');
    change.new = { ...change.new, name: 'main', target: { ...(change.new?.target as object), hash: after } };
    change.old = { ...change.old, name: 'main', target: { ...(change.old?.target as object), hash: before } };
    const states = await deliver(sign.bitbucket(JSON.stringify(payload), 'bb-e2e-1'), after);
    expect(states).toMatchObject({ 'hub/bb-web': 'synced', 'spoke/bb-web-spoke': 'synced' });
    expect(states['hub/bb-api']).toBeUndefined();
    expect(
      api.requests.some((r) => r.url.includes('/diffstat/') && r.headers.authorization === 'Bearer bb-token'),
    ).toBe(true);
  }, 40_000);

  it('Bitbucket Server: one delivery changing two branches refreshes the apps of each, under derived ids', async () => {
    const main = 'c1'.repeat(20);
    const release = 'c2'.repeat(20);
    move(forms('bbs-deploy'), 'main', main);
    move(forms('bbs-web'), 'release', release);
    const payload = hostFixture('bitbucket-server-refs-changed');
    payload.repository = {
      ...(payload.repository as object),
      slug: 'deploy',
      project: { key: 'PLAT' },
      links: {
        clone: [
          { href: 'ssh://git@bbs.acme.test:7999/plat/deploy.git', name: 'ssh' },
          { href: REPOS.server, name: 'http' },
        ],
        self: [{ href: 'https://bbs.acme.test/projects/PLAT/repos/deploy/browse' }],
      },
    };
    const change = (ref: string, to: string) => ({
      ref: { id: ref, type: 'BRANCH' },
      refId: ref,
      fromHash: 'f'.repeat(40),
      toHash: to,
      type: 'UPDATE',
    });
    payload.changes = [change('refs/heads/main', main), change('refs/heads/release', release)];
    const delivery = sign.bitbucketServer(JSON.stringify(payload), 'bbs-e2e-1');
    const response = await stack.post('/webhooks/bitbucket-server', delivery);
    expect(response).toMatchObject({
      status: 202,
      body: {
        rollouts: [
          { delivery: 'bbs-e2e-1:1', rollout: main },
          { delivery: 'bbs-e2e-1:2', rollout: release },
        ],
      },
    });
    expect((await stack.rolloutWhenDone(main)).apps).toMatchObject([
      { cluster: 'hub', name: 'bbs-deploy', state: 'synced' },
    ]);
    expect((await stack.rolloutWhenDone(release)).apps).toMatchObject([
      { cluster: 'spoke', name: 'bbs-web', state: 'synced' },
    ]);
  }, 40_000);

  it('Azure DevOps: the diffs API names the files; the SSH and visualstudio.com forms both match', async () => {
    const before = heads.get(headKey(REPOS.azure, 'main')) ?? 'a'.repeat(40);
    const after = 'd1'.repeat(20);
    move(forms('az-web', 'az-legacy'), 'main', after);
    const query = new URLSearchParams({
      baseVersion: before,
      baseVersionType: 'commit',
      targetVersion: after,
      targetVersionType: 'commit',
      diffCommonCommit: 'false',
      $top: '2000',
      $skip: '0',
      'api-version': '7.1',
    });
    api.answer(`/azure/acme/platform/_apis/git/repositories/deploy/diffs/commits?${query}`, {
      body: azureDiffs([{ changeType: 'edit', path: '/web/values.yaml' }]),
    });
    const payload = hostFixture('azuredevops-git-push');
    const resource = payload.resource as Record<string, unknown>;
    resource.refUpdates = [{ name: 'refs/heads/main', oldObjectId: before, newObjectId: after }];
    resource.repository = {
      ...(resource.repository as object),
      name: 'deploy',
      defaultBranch: 'refs/heads/main',
      remoteUrl: 'https://acme@dev.azure.com/acme/platform/_git/deploy',
    };
    payload.id = 'a2b1c0d9-1111-4222-8333-944455556666';
    const states = await deliver(sign.azure(JSON.stringify(payload)), after);
    expect(states).toEqual({ 'hub/az-web': 'synced' });

    // The same repository through the legacy host: unknown files (no range), so both apps refresh.
    const next = 'd2'.repeat(20);
    move(forms('az-web', 'az-legacy'), 'main', next);
    resource.refUpdates = [{ name: 'refs/heads/main', oldObjectId: '0'.repeat(40), newObjectId: next }];
    resource.repository = {
      ...(resource.repository as object),
      remoteUrl: 'https://acme.visualstudio.com/platform/_git/deploy',
    };
    payload.id = 'a2b1c0d9-1111-4222-8333-944455556667';
    expect(await deliver(sign.azure(JSON.stringify(payload)), next)).toEqual({
      'hub/az-web': 'synced',
      'hub/az-legacy': 'synced',
    });
  }, 60_000);

  it('Gitea: the commit file lists and the scp-style app URL match', async () => {
    const after = 'e1'.repeat(20);
    move(forms('gitea-app'), 'main', after);
    const payload = hostFixture('gitea-push');
    payload.ref = 'refs/heads/main';
    payload.before = 'a'.repeat(40);
    payload.after = after;
    payload.repository = {
      ...(payload.repository as object),
      html_url: REPOS.gitea,
      clone_url: `${REPOS.gitea}.git`,
      default_branch: 'main',
    };
    payload.head_commit = { ...(payload.head_commit as object), id: after };
    expect(await deliver(sign.gitea(JSON.stringify(payload), 'gitea-e2e-1'), after)).toEqual({
      'spoke/gitea-app': 'synced',
    });
  }, 40_000);

  it('generic: a CI job posts the documented body; ssh://git@github.com:acme/gitops.git matches its repo', async () => {
    const after = 'f1'.repeat(20);
    move(forms('gh-scp'), 'main', after);
    const body = JSON.stringify({
      repo: REPOS.github,
      ref: 'refs/heads/main',
      before: 'a'.repeat(40),
      after,
      files: ['clusters/spoke/app.yaml'],
    });
    expect(await deliver(sign.generic(body, 'ci-e2e-1'), after)).toEqual({ 'spoke/gh-scp': 'synced' });
    // Another file of the repository: nothing under the app's paths, so it is not patched again.
    const spoke = fleet.servers.get('spoke');
    const patches = () =>
      spoke?.requests.all().filter((r) => r.verb === 'patch' && r.name === 'gh-scp').length;
    const patched = patches();
    expect(patched).toBeGreaterThan(0);
    const other = JSON.stringify({
      repo: REPOS.github,
      ref: 'main',
      before: after,
      after: 'f2'.repeat(20),
      files: ['docs/readme.md'],
    });
    expect(await stack.post('/webhooks/generic', sign.generic(other, 'ci-e2e-2'))).toMatchObject({
      status: 202,
    });
    for (let i = 0; i < 200 && stack.queues.push.depth > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stack.queues.push.depth).toBe(0);
    expect(patches()).toBe(patched);
  }, 40_000);

  it('answers a forged push 401 and records nothing', async () => {
    const body = JSON.stringify({ repo: REPOS.github, ref: 'main', after: '9'.repeat(40) });
    const forged = { ...sign.generic(body, 'forged-1'), body: body.replace('main', 'prod') };
    expect((await stack.post('/webhooks/generic', forged)).status).toBe(401);
    expect((await stack.get(`/rollouts/${'9'.repeat(40)}`)).status).toBe(404);
  });
});
