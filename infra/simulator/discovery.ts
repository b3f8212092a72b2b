import type { KubeResource } from '../../lib/kubernetes/resources.js';

const VERBS_BY_SCOPE = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** kubectl's short names (`kubectl get app`, `deploy`, `es`, …). */
const SHORT_NAMES: Readonly<Record<string, readonly string[]>> = {
  applications: ['app', 'apps'],
  applicationsets: ['appset', 'appsets'],
  gitrepositories: ['gitrepo'],
  externalsecrets: ['es'],
  secretstores: ['ss'],
  clustersecretstores: ['css'],
  horizontalpodautoscalers: ['hpa'],
  scaledobjects: ['so'],
  deployments: ['deploy'],
  customresourcedefinitions: ['crd', 'crds'],
  configmaps: ['cm'],
};

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '31',
    gitVersion: 'v1.31.0-gitops-sync-simulator',
    platform: 'linux/amd64',
  };
}

export function coreVersions(): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
  };
}

/** The core group: a read-only list of the namespaces objects live in, and the core kinds served (ConfigMaps). */
export function coreResources(resources: readonly KubeResource[] = []): object {
  return {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['get', 'list'],
        shortNames: ['ns'],
      },
      ...resources
        .filter((r) => r.group === '' && r.version === 'v1')
        .map((r) => ({
          name: r.plural,
          singularName: r.kind.toLowerCase(),
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: VERBS_BY_SCOPE,
          ...(SHORT_NAMES[r.plural] === undefined ? {} : { shortNames: SHORT_NAMES[r.plural] }),
        })),
    ],
  };
}

export function namespaceList(names: readonly string[]): object {
  return {
    kind: 'NamespaceList',
    apiVersion: 'v1',
    metadata: {},
    items: names.map((name) => namespace(name)),
  };
}

export function namespace(name: string): object {
  return { kind: 'Namespace', apiVersion: 'v1', metadata: { name }, status: { phase: 'Active' } };
}

export function groupList(resources: readonly KubeResource[]): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups(resources) };
}

export function group(resources: readonly KubeResource[], name: string): object | undefined {
  const found = groups(resources).find((g) => g.name === name);
  return found === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...found };
}

export function resourceList(
  resources: readonly KubeResource[],
  groupName: string,
  version: string,
): object | undefined {
  const served = resources.filter((r) => r.group === groupName && r.version === version);
  if (served.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${groupName}/${version}`,
    resources: served.flatMap((r) => [
      {
        name: r.plural,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: VERBS_BY_SCOPE,
        ...(SHORT_NAMES[r.plural] === undefined ? {} : { shortNames: SHORT_NAMES[r.plural] }),
      },
      {
        name: `${r.plural}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      },
    ]),
  };
}

function groups(resources: readonly KubeResource[]) {
  const byGroup = new Map<string, Set<string>>();
  // The core group (`''`) is served under `/api`, not listed among the `/apis` groups.
  for (const r of resources.filter((x) => x.group !== ''))
    byGroup.set(r.group, (byGroup.get(r.group) ?? new Set()).add(r.version));
  return [...byGroup].map(([name, versions]) => {
    const list = [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions: list, preferredVersion: list[0] };
  });
}
