import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { SeedObject } from '../../../infra/simulator/default-fleet.js';
import { type SimulatedFleet, startSimulatedFleet } from '../../../infra/simulator/simulated-fleet.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';
import { canonicalRepoKey } from '../../../lib/matching/repo-url.js';
import { startTestStack, type TestStack } from '../../helpers/local-stack.js';
import {
  type HostStatus,
  type StatusHostsDouble,
  startStatusHostsApi,
} from '../../helpers/status-hosts-api.js';
import { hostFixture, SECRETS, type SignedDelivery, sign } from '../../unit/webhook/hosts.js';

/**
 * A push from Bitbucket Server, Azure DevOps and Gitea through the local stack ends as a commit status on
 * that host's double: pending, then success, with the rollout page's link and the host's own auth form.
 * The compare calls of Bitbucket Server and Azure get a 404 from the double: fan-out fails open.
 */
const REPOS = {
  server: 'https://bbs.acme.test/scm/plat/deploy.git',
  azure: 'https://dev.azure.com/acme/platform/_git/deploy',
  gitea: 'https://gitea.acme.test/acme/deploy',
} as const;
const TOKENS = { server: 'bbs-e2e-token', azure: 'azure-e2e-pat', gitea: 'gitea-e2e-token' } as const;

const heads = new Map<string, string>();
const headKey = (repoURL: string, revision: string) => `${canonicalRepoKey(repoURL)}@${revision}`;

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

const APPS = [
  application('bbs-deploy', 'ssh://git@bbs.acme.test:7999/plat/deploy.git'),
  application('az-web', 'git@ssh.dev.azure.com:v3/acme/platform/deploy'),
  application('gitea-app', 'git@gitea.acme.test:acme/deploy.git'),
];

describe('commit statuses on Bitbucket Server, Azure DevOps and Gitea through the local stack', () => {
  let fleet: SimulatedFleet;
  let api: StatusHostsDouble;
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    for (const [n, app] of APPS.entries()) {
      const source = (app.object.spec as { source: { repoURL: string; targetRevision: string } }).source;
      heads.set(headKey(source.repoURL, source.targetRevision), (n + 1).toString(16).padStart(40, 'a'));
    }
    fleet = await startSimulatedFleet({
      clusters: [{ name: 'hub', argocd: { namespace: 'argocd' } }],
      objects: { hub: APPS },
      resolveRevision: (repoURL, revision) => heads.get(headKey(repoURL, revision)),
      controller: { tickMs: 20, syncMs: 60, healthMs: 60, retryMs: 60 },
    });
    api = await startStatusHostsApi();
    dir = await mkdtemp(join(tmpdir(), 'gitops-sync-host-statuses-'));
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
          { url: REPOS.server, token: TOKENS.server, apiUrl: api.bitbucketServerBase, commitStatus: true },
          { url: REPOS.azure, token: TOKENS.azure, apiUrl: `${api.url}/azure/acme`, commitStatus: true },
          {
            url: REPOS.gitea,
            provider: 'gitea',
            token: TOKENS.gitea,
            apiUrl: api.giteaApi,
            commitStatus: true,
          },
        ],
        secretPolicy: 'off',
      }),
    );
    stack = await startTestStack({
      FLEET_CONFIG: fleetFile,
      BITBUCKET_SERVER_WEBHOOK_SECRET: SECRETS.bitbucketServer,
      AZURE_DEVOPS_WEBHOOK_SECRET: SECRETS.azure,
      GITEA_WEBHOOK_SECRET: SECRETS.gitea,
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await api?.close();
    await fleet?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  function move(app: string, to: string) {
    const found = APPS.find((a) => a.object.metadata.name === app);
    if (found === undefined) throw new Error(`no app ${app}`);
    const source = (found.object.spec as { source: { repoURL: string } }).source;
    heads.set(headKey(source.repoURL, 'main'), to);
  }

  async function deliver(delivery: SignedDelivery, after: string): Promise<HostStatus[]> {
    const response = await stack.post(`/webhooks/${delivery.provider}`, {
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(response.status).toBe(202);
    await stack.rolloutWhenDone(after);
    // The final notice may land just after the summary turns final.
    const of = () => api.statuses.filter((s) => s.sha === after);
    const deadline = Date.now() + 10_000;
    while (
      Date.now() < deadline &&
      !['SUCCESSFUL', 'succeeded', 'success'].includes(of().at(-1)?.state ?? '')
    )
      await new Promise((r) => setTimeout(r, 50));
    return of();
  }

  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('Bitbucket Server: INPROGRESS then SUCCESSFUL on the commit, with a bearer HTTP access token', async () => {
    const after = 'c1'.repeat(20);
    move('bbs-deploy', after);
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
    payload.changes = [
      {
        ref: { id: 'refs/heads/main', type: 'BRANCH' },
        refId: 'refs/heads/main',
        fromHash: 'f'.repeat(40),
        toHash: after,
        type: 'UPDATE',
      },
    ];
    const statuses = await deliver(sign.bitbucketServer(JSON.stringify(payload), 'bbs-status-1'), after);
    expect(statuses[0]?.state).toBe('INPROGRESS');
    expect(statuses.at(-1)).toMatchObject({
      state: 'SUCCESSFUL',
      context: 'gitops-sync',
      description: '1/1 synced',
      targetUrl: `${stack.url}/ui/rollouts/${after}`,
      authorization: `Bearer ${TOKENS.server}`,
    });
  }, 40_000);

  it('Azure DevOps: pending then succeeded under the project and repository, the PAT as basic auth', async () => {
    const after = 'd1'.repeat(20);
    move('az-web', after);
    const payload = hostFixture('azuredevops-git-push');
    const resource = payload.resource as Record<string, unknown>;
    resource.refUpdates = [{ name: 'refs/heads/main', oldObjectId: 'a'.repeat(40), newObjectId: after }];
    resource.repository = {
      ...(resource.repository as object),
      name: 'deploy',
      defaultBranch: 'refs/heads/main',
      remoteUrl: 'https://acme@dev.azure.com/acme/platform/_git/deploy',
    };
    payload.id = 'b2b1c0d9-1111-4222-8333-944455556666';
    const statuses = await deliver(sign.azure(JSON.stringify(payload)), after);
    expect(statuses[0]?.state).toBe('pending');
    expect(statuses.at(-1)).toMatchObject({
      repository: 'platform/deploy',
      state: 'succeeded',
      context: 'gitops-sync',
      targetUrl: `${stack.url}/ui/rollouts/${after}`,
      authorization: basic('', TOKENS.azure),
    });
    expect(statuses.at(-1)?.body.context).toEqual({ name: 'gitops-sync', genre: 'gitops' });
  }, 40_000);

  it('Gitea: pending then success on owner/repo, with token auth', async () => {
    const after = 'e1'.repeat(20);
    move('gitea-app', after);
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
    const statuses = await deliver(sign.gitea(JSON.stringify(payload), 'gitea-status-1'), after);
    expect(statuses[0]?.state).toBe('pending');
    expect(statuses.at(-1)).toMatchObject({
      repository: 'acme/deploy',
      state: 'success',
      context: 'gitops-sync',
      targetUrl: `${stack.url}/ui/rollouts/${after}`,
      authorization: `token ${TOKENS.gitea}`,
    });
  }, 40_000);
});
