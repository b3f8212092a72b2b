import { stringify } from 'yaml';

/** Files of one repository at its first commit: path → content. */
export type RepoFiles = Record<string, string>;

/** Tags the local stack puts on the first commit of each repository (pinned apps resolve through them). */
export const DEFAULT_TAGS = { platform: ['v1.4.0', 'v1.4.2'], payments: ['v2.0.0'] } as const;

export const PLATFORM_SERVICES = ['web', 'api', 'worker', 'auth', 'search', 'webhooks'] as const;

const yaml = (...documents: object[]) => documents.map((d) => stringify(d)).join('---\n');

function deployment(name: string, image: string, extra: Record<string, unknown> = {}): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name,
              image,
              ports: [{ containerPort: 8080 }],
              resources: { requests: { cpu: '100m', memory: '128Mi' } },
            },
          ],
        },
      },
      ...extra,
    },
  };
}

function service(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
  };
}

function externalSecret(
  name: string,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
): object {
  return {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name, annotations: { 'argocd.argoproj.io/sync-wave': '-1', ...annotations } },
    spec: {
      refreshInterval: '1h',
      secretStoreRef: { kind: 'ClusterSecretStore', name: 'aws-secrets-manager' },
      target: { name },
      ...spec,
    },
  };
}

const kustomization = (resources: string[], extra: Record<string, unknown> = {}) =>
  yaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources, ...extra });

function webOverlay(replicas: number, extraResources: string[] = []): string {
  return kustomization(['../../base', ...extraResources], {
    patches: [
      {
        target: { kind: 'Deployment', name: 'web' },
        patch: `- op: replace\n  path: /spec/replicas\n  value: ${replicas}\n`,
      },
    ],
  });
}

function platformFiles(platformUrl: string): RepoFiles {
  return {
    'README.md':
      '# platform\n\nMonorepo of the platform services (`apps/<service>/`) and shared cluster config (`shared/`).\n',
    // Lets the previews ApplicationSet deploy `apps/web` like every other service directory.
    'apps/web/kustomization.yaml': kustomization(['base']),
    'apps/web/base/kustomization.yaml': kustomization([
      'deployment.yaml',
      'service.yaml',
      'externalsecret.yaml',
    ]),
    'apps/web/base/deployment.yaml': yaml(deployment('web', 'ghcr.io/example/web:1.8.0')),
    'apps/web/base/service.yaml': yaml(service('web')),
    'apps/web/base/externalsecret.yaml': yaml(
      externalSecret('web-secrets', {
        data: [
          { secretKey: 'DATABASE_URL', remoteRef: { key: 'platform/web/database', property: 'url' } },
          { secretKey: 'SESSION_KEY', remoteRef: { key: 'platform/web/session' } },
        ],
      }),
    ),
    'apps/web/overlays/spoke-a/kustomization.yaml': webOverlay(3),
    // This overlay asks for a property the secret does not have: the demo's blocked app.
    'apps/web/overlays/spoke-b/kustomization.yaml': webOverlay(3, ['externalsecret.yaml']),
    'apps/web/overlays/spoke-b/externalsecret.yaml': yaml(
      externalSecret('web-analytics', {
        data: [
          {
            secretKey: 'ANALYTICS_TOKEN',
            remoteRef: { key: 'platform/web/analytics', property: 'spokeBToken' },
          },
        ],
      }),
    ),
    'apps/web/overlays/canary/kustomization.yaml': webOverlay(1),
    'apps/web/overlays/spoke-c/kustomization.yaml': webOverlay(2),
    'apps/web/overlays/e2e/kustomization.yaml': webOverlay(1),
    'apps/api/kustomization.yaml': kustomization([
      'deployment.yaml',
      'service.yaml',
      'hpa.yaml',
      'externalsecret.yaml',
    ]),
    'apps/api/deployment.yaml': yaml(deployment('api', 'ghcr.io/example/api:3.2.1')),
    'apps/api/service.yaml': yaml(service('api')),
    'apps/api/hpa.yaml': yaml({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'api' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
          },
        ],
      },
    }),
    'apps/api/externalsecret.yaml': yaml(
      externalSecret('api-config', { dataFrom: [{ extract: { key: 'platform/api/config' } }] }),
    ),
    'apps/worker/deployment.yaml': yaml(deployment('worker', 'ghcr.io/example/worker:2.0.4')),
    'apps/worker/scaledobject.yaml': yaml({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'worker' },
      spec: {
        scaleTargetRef: { name: 'worker' },
        minReplicaCount: 1,
        maxReplicaCount: 20,
        triggers: [
          {
            type: 'aws-sqs-queue',
            metadata: { queueURL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs', queueLength: '5' },
          },
        ],
      },
    }),
    // A plain Secret with data in Git: the audit reports it.
    'apps/worker/secret.yaml': yaml({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'worker-legacy' },
      type: 'Opaque',
      data: { LEGACY_KEY: Buffer.from('sim-not-a-real-secret').toString('base64') },
    }),
    'apps/auth/kustomization.yaml': kustomization(['deployment.yaml', 'externalsecret.yaml']),
    'apps/auth/deployment.yaml': yaml(deployment('auth', 'ghcr.io/example/auth:5.1.0')),
    'apps/auth/externalsecret.yaml': yaml(
      externalSecret('auth-oidc', {
        data: [
          // A literal top-level key with a dot wins over the nested path.
          { secretKey: 'CLIENT_SECRET', remoteRef: { key: 'platform/auth/oidc', property: 'client.secret' } },
          // No literal "client.id" key: resolved as a path into {"client": {"id": ...}}.
          { secretKey: 'CLIENT_ID', remoteRef: { key: 'platform/auth/oidc', property: 'client.id' } },
        ],
      }),
    ),
    // A floating image tag: the audit reports it.
    'apps/search/deployment.yaml': yaml(deployment('search', 'ghcr.io/example/search:latest')),
    'apps/search/externalsecret.yaml': yaml(
      externalSecret('search-keystore', {
        data: [{ secretKey: 'keystore.jks', remoteRef: { key: 'platform/search/keystore' } }],
      }),
    ),
    'apps/webhooks/deployment.yaml': yaml(deployment('webhooks', 'ghcr.io/example/webhooks:0.9.3')),
    'apps/webhooks/service.yaml': yaml(service('webhooks')),
    'shared/namespaces.yaml': yaml(
      ...PLATFORM_SERVICES.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    ),
    'shared/network-policy.yaml': yaml({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'default-deny', namespace: 'web' },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    }),
    // A CRD and its custom resource in one app, without an earlier sync-wave for the CRD: the audit reports it.
    'shared/crds/widgets.yaml': yaml(
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.dev' },
        spec: {
          group: 'example.dev',
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      },
      {
        apiVersion: 'example.dev/v1',
        kind: 'Widget',
        metadata: { name: 'default', namespace: 'web' },
        spec: { size: 1 },
      },
    ),
    'clusters/hub/README.md': 'Applications of the hub itself (app of apps root).\n',
    'clusters/hub/platform-shared.yaml': yaml({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'platform-shared-hub',
        namespace: 'argocd',
        finalizers: ['resources-finalizer.argocd.argoproj.io'],
      },
      spec: {
        project: 'platform',
        source: { repoURL: platformUrl, path: 'shared', targetRevision: 'main' },
        destination: { name: 'in-cluster', namespace: 'default' },
        syncPolicy: { automated: { prune: true } },
      },
    }),
  };
}

function paymentsFiles(): RepoFiles {
  const services = ['checkout', 'ledger', 'payouts'] as const;
  const secrets: Record<(typeof services)[number], Record<string, unknown>> = {
    checkout: {
      data: [
        { secretKey: 'STRIPE_API_KEY', remoteRef: { key: 'payments/checkout/stripe', property: 'apiKey' } },
      ],
    },
    ledger: {
      data: [{ secretKey: 'DB_PASSWORD', remoteRef: { key: 'payments/ledger/db', property: 'password' } }],
    },
    payouts: { dataFrom: [{ find: { name: { regexp: '^payments/payouts/' } } }] },
  };
  const files: RepoFiles = {
    'README.md':
      '# payments\n\nPayment services (`services/<svc>/`), the gateway Helm chart and its values per environment.\n',
    'charts/gateway/Chart.yaml': yaml({
      apiVersion: 'v2',
      name: 'gateway',
      version: '2.0.0',
      appVersion: '2.0.0',
    }),
    'charts/gateway/values.yaml': yaml({
      replicas: 2,
      image: { repository: 'ghcr.io/example/gateway', tag: '2.0.0' },
    }),
    'charts/gateway/templates/deployment.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: { app: gateway }\n  template:\n    metadata:\n      labels: { app: gateway }\n    spec:\n      containers:\n        - name: gateway\n          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"\n',
    // A Helm template: the preflight does not render charts and records that.
    'charts/gateway/templates/externalsecret.yaml':
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: {{ .Release.Name }}-tls\nspec:\n  secretStoreRef: { kind: ClusterSecretStore, name: aws-secrets-manager }\n  data:\n    - secretKey: tls.key\n      remoteRef: { key: payments/gateway/tls, property: key }\n',
    'values/prod.yaml': yaml({ replicas: 4, image: { tag: '2.0.0' } }),
    // What `helm template` gives for the gateway chart with values/prod.yaml: the simulated Argo CD API
    // serves it for the gateway app (the annotation sim.gitops-sync.dev/helm-output names this file).
    'rendered/gateway-prod.yaml': yaml(
      deployment('gateway-spoke-a', 'ghcr.io/example/gateway:2.0.0', { replicas: 4 }),
      {
        apiVersion: 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name: 'gateway-spoke-a-tls' },
        spec: {
          secretStoreRef: { kind: 'ClusterSecretStore', name: 'aws-secrets-manager' },
          data: [{ secretKey: 'tls.key', remoteRef: { key: 'payments/gateway/tls', property: 'key' } }],
        },
      },
    ),
    'values/staging.yaml': yaml({ replicas: 1, image: { tag: '2.1.0-rc.1' } }),
  };
  for (const name of services) {
    files[`services/${name}/deployment.yaml`] = yaml(deployment(name, `ghcr.io/example/${name}:1.0.0`));
    files[`services/${name}/externalsecret.yaml`] = yaml(externalSecret(`${name}-secrets`, secrets[name]));
  }
  return files;
}

/**
 * The two Git repositories of the default simulated world, at their first commit. `platformUrl` is what
 * the app-of-apps manifests under `clusters/hub/` point at (the local Git server's URL).
 */
export function defaultRepoFiles(platformUrl = 'http://127.0.0.1/platform.git'): {
  platform: RepoFiles;
  payments: RepoFiles;
} {
  return { platform: platformFiles(platformUrl), payments: paymentsFiles() };
}
