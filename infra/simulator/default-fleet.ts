import {
  APPLICATION_SETS,
  APPLICATIONS,
  CLUSTER_SECRET_STORES,
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  DEPLOYMENTS,
  EXTERNAL_SECRETS,
  GIT_REPOSITORIES,
  HORIZONTAL_POD_AUTOSCALERS,
  type KubeResource,
  SCALED_OBJECTS,
  SERVICE_ACCOUNTS,
} from '../../lib/kubernetes/resources.js';
import { PLATFORM_SERVICES } from './default-repos.js';
import type { StoredObject } from './resource-store.js';

export interface RepoUrls {
  readonly platform: string;
  readonly payments: string;
}

export interface SimulatedClusterSpec {
  readonly name: string;
  readonly argocd?: { readonly namespace: string };
  readonly flux?: { readonly namespace: string };
}

export interface SeedObject {
  readonly resource: KubeResource;
  readonly object: StoredObject;
  /** Status bulk priming lays its sync state over (the synthetic fleet's realistic resources and history). */
  readonly bulkStatus?: Record<string, unknown>;
}

export interface SimulatedWorld {
  readonly clusters: readonly SimulatedClusterSpec[];
  readonly objects: Readonly<Record<string, readonly SeedObject[]>>;
}

const PATHS = 'argocd.argoproj.io/manifest-generate-paths';
const OUTCOME = 'sim.gitops-sync.dev/outcome';
const HELM_OUTPUT = 'sim.gitops-sync.dev/helm-output';
const AUTOMATED = { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'] };

interface AppOptions {
  readonly repo: string;
  readonly path?: string;
  readonly revision?: string;
  readonly destination: string;
  readonly namespace: string;
  readonly paths?: string;
  readonly outcome?: string;
  readonly manual?: boolean;
  readonly sources?: readonly Record<string, unknown>[];
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly extra?: Record<string, unknown>;
}

function app(name: string, o: AppOptions): SeedObject {
  const annotations: Record<string, string> = {
    ...(o.paths === undefined ? {} : { [PATHS]: o.paths }),
    ...(o.outcome === undefined ? {} : { [OUTCOME]: o.outcome }),
    ...o.annotations,
  };
  const source = { repoURL: o.repo, path: o.path ?? '.', targetRevision: o.revision ?? 'main' };
  return {
    resource: APPLICATIONS,
    object: {
      metadata: {
        name,
        namespace: 'argocd',
        labels: { 'app.kubernetes.io/part-of': o.labels?.team ?? 'platform', ...o.labels },
        annotations,
        finalizers: ['resources-finalizer.argocd.argoproj.io'],
      },
      spec: {
        project: 'platform',
        ...(o.sources === undefined ? { source } : { sources: o.sources }),
        destination: { name: o.destination, namespace: o.namespace },
        ...(o.manual === true ? {} : { syncPolicy: AUTOMATED }),
        ...o.extra,
      },
    },
  };
}

function hubApps(urls: RepoUrls): SeedObject[] {
  const platform = urls.platform;
  const apps: SeedObject[] = [
    app('root', {
      repo: platform,
      path: 'clusters/hub',
      destination: 'in-cluster',
      namespace: 'argocd',
      outcome: 'unchanged',
    }),
  ];
  for (const spoke of ['spoke-a', 'spoke-b']) {
    apps.push(
      app(`web-${spoke}`, {
        repo: platform,
        path: `apps/web/overlays/${spoke}`,
        paths: '.;../../base',
        destination: spoke,
        namespace: 'web',
      }),
      app(`platform-shared-${spoke}`, {
        repo: platform,
        path: 'shared',
        destination: spoke,
        namespace: 'default',
        outcome: 'unchanged',
      }),
    );
    for (const service of PLATFORM_SERVICES.filter((s) => s !== 'web')) {
      apps.push(
        app(`${service}-${spoke}`, {
          repo: platform,
          path: `apps/${service}`,
          paths: '.',
          destination: spoke,
          namespace: service,
        }),
      );
    }
  }
  apps.push(
    app('web-canary', {
      repo: platform,
      path: 'apps/web/overlays/canary',
      paths: '.;../../base',
      destination: 'spoke-a',
      namespace: 'web-canary',
      outcome: 'degrade',
    }),
    app('web-release', {
      repo: platform,
      path: 'apps/web/overlays/spoke-a',
      revision: 'v1.4.2',
      destination: 'spoke-a',
      namespace: 'web-release',
    }),
  );
  for (const service of PLATFORM_SERVICES) {
    const generated = app(`${service}-preview`, {
      repo: platform,
      path: `apps/${service}`,
      paths: '.',
      destination: 'spoke-b',
      namespace: `preview-${service}`,
    });
    (generated.object.metadata as Record<string, unknown>).ownerReferences = [
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'ApplicationSet',
        name: 'previews',
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    apps.push(generated);
  }
  apps.push({
    resource: APPLICATION_SETS,
    object: {
      metadata: { name: 'previews', namespace: 'argocd' },
      spec: {
        goTemplate: true,
        generators: [
          {
            git: {
              repoURL: platform,
              revision: 'HEAD',
              directories: [{ path: 'apps/*' }, { path: 'apps/legacy-*', exclude: true }],
            },
          },
        ],
        template: {
          metadata: { name: '{{.path.basename}}-preview', annotations: { [PATHS]: '.' } },
          spec: {
            project: 'platform',
            source: { repoURL: platform, targetRevision: 'HEAD', path: '{{.path.path}}' },
            destination: { name: 'spoke-b', namespace: 'preview-{{.path.basename}}' },
            syncPolicy: AUTOMATED,
          },
        },
      },
    },
  });
  const payments = urls.payments;
  const team = { team: 'payments' };
  for (const spoke of ['spoke-a', 'spoke-b']) {
    for (const service of ['checkout', 'ledger']) {
      apps.push(
        app(`${service}-${spoke}`, {
          repo: payments,
          path: `services/${service}`,
          paths: '.',
          destination: spoke,
          namespace: service,
          labels: team,
        }),
      );
    }
  }
  apps.push(
    app('payouts-spoke-a', {
      repo: payments,
      path: 'services/payouts',
      paths: '.',
      destination: 'spoke-a',
      namespace: 'payouts',
      labels: team,
    }),
    app('gateway-spoke-a', {
      repo: payments,
      destination: 'spoke-a',
      namespace: 'gateway',
      labels: team,
      annotations: { [HELM_OUTPUT]: 'rendered/gateway-prod.yaml' },
      sources: [
        {
          repoURL: payments,
          path: 'charts/gateway',
          targetRevision: 'main',
          helm: { valueFiles: ['$values/values/prod.yaml'] },
        },
        { repoURL: payments, targetRevision: 'main', ref: 'values' },
      ],
    }),
  );
  return apps;
}

function spokeCApps(urls: RepoUrls): SeedObject[] {
  const platform = urls.platform;
  const web = { repo: platform, paths: '.;../../base', destination: 'in-cluster' };
  return [
    app('web', {
      ...web,
      path: 'apps/web/overlays/spoke-c',
      namespace: 'web',
      outcome: 'retry-then-succeed',
    }),
    app('web-e2e', { ...web, path: 'apps/web/overlays/e2e', namespace: 'web-e2e', outcome: 'fail' }),
    app('web-dr', { ...web, path: 'apps/web/overlays/spoke-c', namespace: 'web-dr', manual: true }),
    app('web-stable', {
      ...web,
      path: 'apps/web/overlays/spoke-c',
      namespace: 'web-stable',
      revision: '~1.4',
    }),
    app('api', { repo: platform, path: 'apps/api', paths: '.', destination: 'in-cluster', namespace: 'api' }),
    app('worker', {
      repo: platform,
      path: 'apps/worker',
      paths: '.',
      destination: 'in-cluster',
      namespace: 'worker',
    }),
    app('platform-shared', {
      repo: platform,
      path: 'shared',
      destination: 'in-cluster',
      namespace: 'default',
      outcome: 'unchanged',
    }),
    app('checkout', {
      repo: urls.payments,
      path: 'services/checkout',
      paths: '.',
      destination: 'in-cluster',
      namespace: 'checkout',
      labels: { team: 'payments' },
    }),
    app('payouts', {
      repo: urls.payments,
      path: 'services/payouts',
      paths: '.',
      destination: 'in-cluster',
      namespace: 'payouts',
      labels: { team: 'payments' },
      outcome: 'error',
    }),
    {
      resource: GIT_REPOSITORIES,
      object: {
        metadata: { name: 'platform', namespace: 'flux-system' },
        spec: { url: platform, ref: { branch: 'main' }, interval: '10m', timeout: '60s' },
      },
    },
  ];
}

/** What the workloads' clusters hold: ESO stores and synced ExternalSecrets, Deployments, autoscalers, CRDs. */
function liveObjects(cluster: string): SeedObject[] {
  const ready = (reason: string) => ({
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason,
        message: reason === 'Valid' ? 'store validated' : 'secret synced',
      },
    ],
  });
  const objects: SeedObject[] = [
    // The ServiceAccount the store reads as (IRSA): the preflight assumes its role, as ESO would.
    {
      resource: SERVICE_ACCOUNTS,
      object: {
        metadata: {
          name: 'external-secrets',
          namespace: 'external-secrets',
          annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::000000000000:role/external-secrets' },
        },
      },
    },
    {
      resource: CLUSTER_SECRET_STORES,
      object: {
        metadata: { name: 'aws-secrets-manager' },
        spec: {
          provider: {
            aws: {
              service: 'SecretsManager',
              region: 'eu-west-1',
              auth: {
                jwt: { serviceAccountRef: { name: 'external-secrets', namespace: 'external-secrets' } },
              },
            },
          },
        },
        status: ready('Valid'),
      },
    },
    ...['externalsecrets.external-secrets.io', 'applications.argoproj.io'].map((name) => ({
      resource: CUSTOM_RESOURCE_DEFINITIONS,
      object: {
        metadata: { name },
        spec: {
          group: name.slice(name.indexOf('.') + 1),
          names: {
            plural: name.split('.')[0],
            kind: name.startsWith('ext') ? 'ExternalSecret' : 'Application',
          },
          scope: 'Namespaced',
        },
      },
    })),
  ];
  if (cluster === 'hub') return objects;
  for (const service of ['web', 'api', 'worker']) {
    objects.push({
      resource: DEPLOYMENTS,
      object: {
        metadata: { name: service, namespace: service, labels: { 'app.kubernetes.io/instance': service } },
        spec: { replicas: 2, selector: { matchLabels: { app: service } } },
        status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 },
      },
    });
  }
  objects.push(
    {
      resource: EXTERNAL_SECRETS,
      object: {
        metadata: { name: 'web-secrets', namespace: 'web' },
        spec: { secretStoreRef: { kind: 'ClusterSecretStore', name: 'aws-secrets-manager' }, data: [] },
        status: { ...ready('SecretSynced'), refreshTime: '2024-01-01T00:00:00Z' },
      },
    },
    {
      resource: HORIZONTAL_POD_AUTOSCALERS,
      object: {
        metadata: { name: 'api', namespace: 'api' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
          minReplicas: 2,
          maxReplicas: 10,
        },
      },
    },
    {
      resource: SCALED_OBJECTS,
      object: {
        metadata: { name: 'worker', namespace: 'worker' },
        spec: { scaleTargetRef: { name: 'worker' } },
      },
    },
  );
  return objects;
}

/**
 * Each Argo CD of the default world runs with polling off (`timeout.reconciliation: 0s`), as the README's
 * setup asks: apps move only when something refreshes them, so the world's timings stay the orchestrator's.
 * A test that wants Argo CD to poll writes this ConfigMap (the simulated controller reads it on every scan).
 */
function argocdCm(): SeedObject {
  return {
    resource: CONFIG_MAPS,
    object: {
      metadata: { name: 'argocd-cm', namespace: 'argocd', labels: { 'app.kubernetes.io/part-of': 'argocd' } },
      data: { 'timeout.reconciliation': '0s' },
    },
  };
}

/**
 * The world `npm start` simulates without `FLEET_CONFIG`: a hub running Argo CD that deploys to spoke-a
 * and spoke-b, and spoke-c running its own Argo CD and Flux. Applications carry no status: the simulated
 * fleet primes them as synced at the commit their revision resolves to when it starts.
 */
export function defaultFleet(urls: RepoUrls): SimulatedWorld {
  return {
    clusters: [
      { name: 'hub', argocd: { namespace: 'argocd' } },
      { name: 'spoke-a' },
      { name: 'spoke-b' },
      { name: 'spoke-c', argocd: { namespace: 'argocd' }, flux: { namespace: 'flux-system' } },
    ],
    objects: {
      hub: [...hubApps(urls), argocdCm(), ...liveObjects('hub')],
      'spoke-a': liveObjects('spoke-a'),
      'spoke-b': liveObjects('spoke-b'),
      'spoke-c': [...spokeCApps(urls), argocdCm(), ...liveObjects('spoke-c')],
    },
  };
}
