/** A Kubernetes resource type as the API addresses it (`/apis/<group>/<version>/…/<plural>`). */
export interface KubeResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export const APPLICATIONS = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'applications',
  kind: 'Application',
  namespaced: true,
} as const satisfies KubeResource;

export const APPLICATION_SETS = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'applicationsets',
  kind: 'ApplicationSet',
  namespaced: true,
} as const satisfies KubeResource;

export const GIT_REPOSITORIES = {
  group: 'source.toolkit.fluxcd.io',
  version: 'v1',
  plural: 'gitrepositories',
  kind: 'GitRepository',
  namespaced: true,
} as const satisfies KubeResource;

/** Argo CD's projects: their sync windows (fan-out) and, with `readAppProjects`, the audit. */
export const APP_PROJECTS = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'appprojects',
  kind: 'AppProject',
  namespaced: true,
} as const satisfies KubeResource;

/** ESO serves only v1 since v0.17 (v1beta1 is unserved). */
export const EXTERNAL_SECRETS = {
  group: 'external-secrets.io',
  version: 'v1',
  plural: 'externalsecrets',
  kind: 'ExternalSecret',
  namespaced: true,
} as const satisfies KubeResource;

export const SECRET_STORES = {
  group: 'external-secrets.io',
  version: 'v1',
  plural: 'secretstores',
  kind: 'SecretStore',
  namespaced: true,
} as const satisfies KubeResource;

export const CLUSTER_SECRET_STORES = {
  group: 'external-secrets.io',
  version: 'v1',
  plural: 'clustersecretstores',
  kind: 'ClusterSecretStore',
  namespaced: false,
} as const satisfies KubeResource;

export const HORIZONTAL_POD_AUTOSCALERS = {
  group: 'autoscaling',
  version: 'v2',
  plural: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
} as const satisfies KubeResource;

export const SCALED_OBJECTS = {
  group: 'keda.sh',
  version: 'v1alpha1',
  plural: 'scaledobjects',
  kind: 'ScaledObject',
  namespaced: true,
} as const satisfies KubeResource;

export const DEPLOYMENTS = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  namespaced: true,
} as const satisfies KubeResource;

export const CUSTOM_RESOURCE_DEFINITIONS = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
} as const satisfies KubeResource;

/** Core `v1` ConfigMaps: the orchestrator reads one, Argo CD's `argocd-cm` (the polling gate). */
export const CONFIG_MAPS = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
} as const satisfies KubeResource;

/** Core `v1` ServiceAccounts: the preflight gets one, a store's `auth.jwt.serviceAccountRef` (its IRSA role). */
export const SERVICE_ACCOUNTS = {
  group: '',
  version: 'v1',
  plural: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
} as const satisfies KubeResource;

/** Every resource the orchestrator reads or patches; the simulator serves exactly these. */
export const KUBE_RESOURCES: readonly KubeResource[] = [
  APPLICATIONS,
  APPLICATION_SETS,
  GIT_REPOSITORIES,
  EXTERNAL_SECRETS,
  SECRET_STORES,
  CLUSTER_SECRET_STORES,
  HORIZONTAL_POD_AUTOSCALERS,
  SCALED_OBJECTS,
  DEPLOYMENTS,
  CUSTOM_RESOURCE_DEFINITIONS,
  APP_PROJECTS,
  CONFIG_MAPS,
  SERVICE_ACCOUNTS,
];

/** `applications.argoproj.io`: the name RBAC rules and API errors use. */
export function resourceName(resource: Pick<KubeResource, 'group' | 'plural'>): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}

/** True for the kinds served by Kubernetes itself (no CRD): they accept strategic merge patches. */
export function isBuiltIn(resource: Pick<KubeResource, 'group'>): boolean {
  return ['', 'apps', 'autoscaling', 'apiextensions.k8s.io', 'batch'].includes(resource.group);
}
