import { stringify } from 'yaml';
import { bareRepoPath, createBareRepo } from '../../../infra/local/git-repos.js';
import type { SeedSecret } from '../../../infra/local/secrets-manager.js';
import { type ArgoCdApiServer, startArgoCdApiServer } from '../../../infra/simulator/argocd-api-server.js';
import { type KubeApiServer, startKubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import { ResourceStore, type StoredObject } from '../../../infra/simulator/resource-store.js';
import { parseApplication } from '../../../lib/argocd/application.js';
import { type ApiTuning, createArgoCdApis, createRenderCache } from '../../../lib/argocd-api/renderers.js';
import type { FleetConfig } from '../../../lib/fleet/fleet-config.js';
import { gitTreeSource } from '../../../lib/git/git-tree.js';
import { createGitReader, type GitReader } from '../../../lib/git/manifests.js';
import { listRemoteRefs, resolveRevision } from '../../../lib/git/remote-refs.js';
import { createRepoAllowList } from '../../../lib/git/repo-url.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import { APPLICATIONS, KUBE_RESOURCES } from '../../../lib/kubernetes/resources.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';
import type { ObjectMatch } from '../../../lib/matching/match-index.js';
import { constraintMatches } from '../../../lib/matching/semver.js';
import { createAppPreflight } from '../../../lib/rollouts/app-preflight.js';
import type { Preflight } from '../../../lib/rollouts/fanout.js';
import { createResolutionCache } from '../../../lib/secrets/secret-fetcher.js';
import type { TableRef } from '../../../lib/store/dynamo.js';
import { dynamoRolloutWriter } from '../../../lib/store/rollouts.js';
import type { PushEvent } from '../../../lib/webhook/push-event.js';
import { startTestGitHost, type TestGitHost } from '../../helpers/git.js';
import { startTestSecretsManager, type TestSecretsManager } from '../../helpers/secrets-manager.js';

export const ARGO_TOKEN = 'argocd-test-token-5b8e1f-never-logged';
export const yaml = (...docs: object[]) => docs.map((d) => stringify(d)).join('---\n');

export const CLUSTER_STORE = {
  apiVersion: 'external-secrets.io/v1',
  kind: 'ClusterSecretStore',
  metadata: { name: 'aws' },
  spec: { provider: { aws: { service: 'SecretsManager', region: 'eu-west-1' } } },
};

export const externalSecret = (name: string, key: string, property?: string) => ({
  apiVersion: 'external-secrets.io/v1',
  kind: 'ExternalSecret',
  metadata: { name },
  spec: {
    secretStoreRef: { kind: 'ClusterSecretStore', name: 'aws' },
    data: [{ secretKey: 'v', remoteRef: { key, ...(property === undefined ? {} : { property }) } }],
  },
});

export interface RenderWorld {
  readonly git: TestGitHost;
  readonly sm: TestSecretsManager;
  readonly argocd: ArgoCdApiServer;
  readonly store: ResourceStore;
  readonly sha: string;
  readonly repoUrl: string;
  readonly logLines: LogLine[];
  readonly fleet: FleetConfig;
  reader(): GitReader;
  /** A preflight as fan-out builds it, per push: one render cache, Argo CD named or not. */
  preflight(options?: {
    argocd?: boolean;
    tuning?: ApiTuning;
    /** The destination cluster's live SecretStores (default: one ClusterSecretStore `aws`). */
    clusterStores?: (cluster: string) => Promise<readonly unknown[]>;
  }): { run: Preflight; close(): Promise<void> };
  addApp(app: StoredObject): ObjectMatch;
  push(): PushEvent;
  close(): Promise<void>;
}

/**
 * The world's objects served by a simulated Kubernetes API server as the cluster `hub` (an admin `token`),
 * and the orchestrator's client of it, without retries.
 */
export async function startHubApi(
  world: RenderWorld,
  token: string,
): Promise<{ readonly kube: KubeApiServer; readonly api: ClusterApi }> {
  const kube = await startKubeApiServer({ tokens: { [token]: { user: 'admin' } }, store: world.store });
  const clients = createClusterClients(
    {
      ...world.fleet,
      clusters: [{ name: 'hub', server: kube.url, auth: { token }, argocd: { namespace: 'argocd' } }],
    },
    { secrets: { getSecretString: () => Promise.reject(new Error('none')) }, retry: false },
  );
  return { kube, api: clients.get('hub') as ClusterApi };
}

/** Starts the rollout of the world's repository at `sha` (a webhook push of main, received now). */
export async function startWorldRollout(ref: TableRef, world: RenderWorld, sha: string): Promise<void> {
  await dynamoRolloutWriter(ref, 3600).start({
    sha,
    repo: 'org/apps',
    repoUrl: world.repoUrl,
    ref: 'refs/heads/main',
    trigger: 'webhook',
    receivedAt: new Date().toISOString(),
  });
}

/** A Git host with one repository, the Secrets Manager double, and the Argo CD API double on loopback. */
export async function startRenderWorld(
  files: Record<string, string>,
  secrets: SeedSecret[],
): Promise<RenderWorld> {
  const git = await startTestGitHost();
  const sha = await createBareRepo(git.root, 'apps', files);
  const repoUrl = git.url('apps');
  const sm = await startTestSecretsManager({ secrets });
  const store = new ResourceStore(KUBE_RESOURCES);
  const cache = {};
  const argocd = await startArgoCdApiServer({
    store,
    tokens: { [ARGO_TOKEN]: { projects: '*' }, 'team-b-token': { projects: ['team-b'] } },
    treeAt: async (_url, commit) => {
      const tree = gitTreeSource({ gitdir: bareRepoPath(git.root, 'apps'), oid: commit, cache });
      return (await tree.listDirectory('').catch(() => undefined)) === undefined ? undefined : tree;
    },
    resolveRevision: async (url, revision) => {
      const refs = await listRemoteRefs({ url }, { allowList: createRepoAllowList([repoUrl]) });
      const resolved = resolveRevision(refs, revision, constraintMatches);
      return resolved.found ? resolved.sha : undefined;
    },
  });
  const logLines: LogLine[] = [];
  const logger = createMemoryLogger(logLines);
  const fleet = (withArgo: boolean): FleetConfig => ({
    clusters: [
      {
        name: 'hub',
        server: 'http://127.0.0.1:9',
        auth: { token: 'unused' },
        argocd: { namespace: 'argocd' },
        ...(withArgo ? { argocdUrl: argocd.url, argocdTokenSecret: 'argocd/token' } : {}),
      },
    ],
    repositories: [{ url: repoUrl }],
    secretPolicy: 'block',
    secretStores: [],
  });
  const readers: GitReader[] = [];
  const reader = () => {
    const r = createGitReader({ repositories: [repoUrl], logger });
    readers.push(r);
    return r;
  };
  return {
    git,
    sm,
    argocd,
    store,
    sha,
    repoUrl,
    logLines,
    fleet: fleet(true),
    reader,
    preflight(options = {}) {
      const config = fleet(options.argocd !== false);
      const apis = createArgoCdApis(config.clusters, {
        // The token comes from Secrets Manager, as in AWS.
        secrets: { getSecretString: async () => JSON.stringify({ token: ARGO_TOKEN }) },
        tuning: { backoffMs: 1, timeoutMs: 2000, ...options.tuning },
      });
      const gitReader = reader();
      const run = createAppPreflight({
        fleet: config,
        git: gitReader,
        credentials: async () => undefined,
        clusterStores: options.clusterStores ?? (async () => [CLUSTER_STORE]),
        resolve: { api: sm.api, logger, cache: createResolutionCache() },
        renderer: createRenderCache(apis, logger),
      });
      return { run, close: () => gitReader.close() };
    },
    addApp(app) {
      store.create(APPLICATIONS, app);
      const parsed = parseApplication(app);
      if (!parsed.ok) throw new Error(parsed.reason);
      return {
        target: { cluster: 'hub', namespace: 'argocd', name: app.metadata.name, kind: 'Application' },
        object: { cluster: 'hub', kind: 'Application', value: parsed.value, raw: app },
        decision: 'refreshed',
        reason: 'test',
        hydrate: false,
      };
    },
    push: () => ({
      provider: 'github',
      deliveryId: 'd-1',
      repo: { fullName: 'org/apps', webUrl: repoUrl, urls: [repoUrl] },
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: '0'.repeat(40),
      after: sha,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'dev' },
      commitTitle: 'test',
      changedFiles: { known: false, reason: 'no-commit-list' },
      receivedAt: new Date().toISOString(),
    }),
    async close() {
      await Promise.all(readers.map((r) => r.close()));
      await argocd.close();
      await sm.close();
      await git.close();
    },
  };
}

/** An Application on the hub in project `team-a`, deploying to namespace `shop`. */
export function application(
  name: string,
  spec: Record<string, unknown>,
  annotations: Record<string, string> = {},
): StoredObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd', annotations },
    spec: { project: 'team-a', destination: { name: 'in-cluster', namespace: 'shop' }, ...spec },
  };
}
