import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeApiServer, startKubeApiServer } from '../../../infra/simulator/kube-api-server.js';
import { grantsFromRbac } from '../../../infra/simulator/rbac-grants.js';
import type { ClusterApi } from '../../../lib/kubernetes/cluster-api.js';
import { createClusterClients } from '../../../lib/kubernetes/cluster-clients.js';
import {
  APPLICATION_SETS,
  APPLICATIONS,
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  DEPLOYMENTS,
  EXTERNAL_SECRETS,
  GIT_REPOSITORIES,
  KUBE_RESOURCES,
  SERVICE_ACCOUNTS,
} from '../../../lib/kubernetes/resources.js';
import { application } from '../../helpers/simulator.js';

const DIR = join(import.meta.dirname, '../../../infra/rbac');
const manifests = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => readFileSync(join(DIR, f), 'utf8'));

describe('a cluster where only infra/rbac grants the orchestrator anything', () => {
  let server: KubeApiServer;
  let api: ClusterApi;

  beforeAll(async () => {
    server = await startKubeApiServer({
      tokens: {
        'eks-group-member': {
          user: 'gitops-sync-orchestrator',
          grants: grantsFromRbac(manifests, { kind: 'Group', name: 'gitops-sync-orchestrator' }),
        },
      },
    });
    server.store.create(APPLICATIONS, application('web'));
    server.store.create(APPLICATIONS, {
      ...application('other'),
      metadata: { name: 'other', namespace: 'team-a' },
    });
    server.store.create(APPLICATION_SETS, { metadata: { name: 'previews', namespace: 'argocd' }, spec: {} });
    server.store.create(GIT_REPOSITORIES, {
      metadata: { name: 'platform', namespace: 'flux-system' },
      spec: {},
    });
    server.store.create(DEPLOYMENTS, { metadata: { name: 'web', namespace: 'web' }, spec: { replicas: 2 } });
    server.store.create(EXTERNAL_SECRETS, { metadata: { name: 'web', namespace: 'web' }, spec: {} });
    server.store.create(SERVICE_ACCOUNTS, { metadata: { name: 'eso', namespace: 'web' } });
    for (const name of ['argocd-cm', 'argocd-rbac-cm'])
      server.store.create(CONFIG_MAPS, { metadata: { name, namespace: 'argocd' }, data: {} });
    const fleet = {
      clusters: [{ name: 'spoke', server: server.url, auth: { token: 'eks-group-member' } }],
      repositories: [],
      secretPolicy: 'block' as const,
      secretStores: [],
    };
    api = createClusterClients(fleet, {
      secrets: { getSecretString: () => Promise.reject(new Error('unused')) },
      retry: false,
    }).get('spoke') as ClusterApi;
  });
  afterAll(async () => {
    await server.close();
  });

  const refresh = { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } };

  // Deployments and CRDs are served by the simulator (audit fixtures) but never read by the orchestrator;
  // of ConfigMaps it only gets argocd-cm, of ServiceAccounts only the one a SecretStore names (below).
  const read = KUBE_RESOURCES.filter(
    (r) =>
      r !== DEPLOYMENTS && r !== CUSTOM_RESOURCE_DEFINITIONS && r !== CONFIG_MAPS && r !== SERVICE_ACCOUNTS,
  );
  it.each(read.map((r) => [r.plural, r] as const))(
    'can read %s everywhere it needs to',
    async (_p, resource) => {
      const namespace =
        resource.group === 'argoproj.io'
          ? 'argocd'
          : resource.group.includes('fluxcd')
            ? 'flux-system'
            : undefined;
      await expect(api.list(resource, namespace)).resolves.toBeDefined();
    },
  );

  it('can refresh Applications and ApplicationSets in the Argo CD namespace', async () => {
    await expect(api.mergePatch(APPLICATIONS, 'argocd', 'web', refresh)).resolves.toBeDefined();
    await expect(
      api.mergePatch(APPLICATION_SETS, 'argocd', 'previews', {
        metadata: { annotations: { 'argocd.argoproj.io/application-set-refresh': 'true' } },
      }),
    ).resolves.toBeDefined();
  });

  it("can get Argo CD's argocd-cm (the polling gate)", async () => {
    await expect(api.get(CONFIG_MAPS, 'argocd', 'argocd-cm')).resolves.toMatchObject({ kind: 'ConfigMap' });
  });

  it("can get the ServiceAccount a SecretStore's auth.jwt names (its IRSA role)", async () => {
    await expect(api.get(SERVICE_ACCOUNTS, 'web', 'eso')).resolves.toMatchObject({
      metadata: { name: 'eso' },
    });
  });

  it('can request a Flux reconcile of a GitRepository', async () => {
    await expect(
      api.mergePatch(GIT_REPOSITORIES, 'flux-system', 'platform', {
        metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': '2024-06-01 12:00:00 +0000 UTC' } },
      }),
    ).resolves.toBeDefined();
  });

  it.each([
    ['patching a Deployment', () => api.mergePatch(DEPLOYMENTS, 'web', 'web', { spec: { replicas: 0 } })],
    ['patching an ExternalSecret', () => api.mergePatch(EXTERNAL_SECRETS, 'web', 'web', refresh)],
    [
      'patching an Application outside the Argo CD namespace',
      () => api.mergePatch(APPLICATIONS, 'team-a', 'other', refresh),
    ],
    ['listing Applications of all namespaces', () => api.list(APPLICATIONS)],
    ['listing Deployments, which it never reads', () => api.list(DEPLOYMENTS)],
    ['listing CRDs, which it never reads', () => api.list(CUSTOM_RESOURCE_DEFINITIONS)],
    ['getting an Application, which it only lists', () => api.get(APPLICATIONS, 'argocd', 'web')],
    ['getting any other ConfigMap', () => api.get(CONFIG_MAPS, 'argocd', 'argocd-rbac-cm')],
    ['listing ConfigMaps', () => api.list(CONFIG_MAPS, 'argocd')],
    ['listing ServiceAccounts', () => api.list(SERVICE_ACCOUNTS, 'web')],
  ])('is forbidden %s', async (_name, call) => {
    await expect(call()).rejects.toMatchObject({ upstreamStatus: 403, retryable: false });
  });
});
