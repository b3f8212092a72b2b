import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage, UpstreamError } from '../errors.js';
import { argocdNamespaces, type FleetConfig } from '../fleet/fleet-config.js';
import type { ClusterApi, KubeObject } from '../kubernetes/cluster-api.js';
import { DEFAULT_PAGE_SIZE, listAllPages } from '../kubernetes/list-pages.js';
import {
  APPLICATIONS,
  HORIZONTAL_POD_AUTOSCALERS,
  type KubeResource,
  SCALED_OBJECTS,
} from '../kubernetes/resources.js';
import { slimApplication } from '../kubernetes/slim-object.js';

/** Not in the orchestrator's default RBAC: read only when `readAppProjects` is on. */
export const APP_PROJECTS = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'appprojects',
  kind: 'AppProject',
  namespaced: true,
} as const satisfies KubeResource;

/** The live kinds the audit rules read on a destination cluster. */
export const LIVE_RESOURCES: readonly KubeResource[] = [HORIZONTAL_POD_AUTOSCALERS, SCALED_OBJECTS];

export interface ArgoClusterRead {
  readonly cluster: string;
  readonly applications: readonly KubeObject[];
  /** AppProjects by name; absent when not read. */
  readonly appProjects?: ReadonlyMap<string, unknown>;
  readonly appProjectsError?: string;
}

export interface UnreadCluster {
  readonly name: string;
  readonly error: string;
}

export interface ArgoClustersRead {
  readonly read: readonly ArgoClusterRead[];
  readonly unread: readonly UnreadCluster[];
}

/** One LIST of Applications (and, if asked, AppProjects) per cluster running Argo CD, clusters in parallel. */
export async function readArgoClusters(
  fleet: FleetConfig,
  clients: ReadonlyMap<string, ClusterApi>,
  options: { readonly concurrency: number; readonly readAppProjects: boolean },
): Promise<ArgoClustersRead> {
  const argo = fleet.clusters.flatMap((c) => (c.argocd === undefined ? [] : [{ ...c, argocd: c.argocd }]));
  const settled = await mapWithConcurrency(argo, options.concurrency, async (cluster) => {
    const api = clients.get(cluster.name);
    if (api === undefined) throw new Error(`no client for cluster ${cluster.name}`);
    const [applications, projects] = await Promise.all([
      // Every namespace the cluster's Argo CD keeps Applications in (apps in any namespace, two instances),
      // paged and slimmed as each page arrives (the audit reads no more than `slimApplication` keeps).
      Promise.all(
        argocdNamespaces(cluster).map((ns) =>
          listAllPages(api, APPLICATIONS, ns, DEFAULT_PAGE_SIZE, (item) =>
            slimApplication(withType(item, APPLICATIONS)),
          ),
        ),
      ).then((lists) => lists.flat()),
      options.readAppProjects
        ? api.list(APP_PROJECTS, cluster.argocd.namespace).then(
            (list) => ({ list }),
            (error: unknown) => ({ error: errorMessage(error) }),
          )
        : undefined,
    ]);
    const read: ArgoClusterRead = {
      cluster: cluster.name,
      applications,
      ...(projects === undefined
        ? {}
        : 'error' in projects
          ? { appProjectsError: projects.error }
          : {
              appProjects: new Map(
                projects.list.items.map((p) => [p.metadata.name, withType(p, APP_PROJECTS)] as const),
              ),
            }),
    };
    return read;
  });
  const read: ArgoClusterRead[] = [];
  const unread: UnreadCluster[] = [];
  settled.forEach((result, i) => {
    const name = argo[i]?.name ?? '';
    if (result.status === 'fulfilled') read.push(result.value);
    else unread.push({ name, error: errorMessage(result.reason) });
  });
  return { read, unread };
}

export type LiveRead =
  | { readonly ok: true; readonly byNamespace: ReadonlyMap<string, readonly unknown[]> }
  | { readonly ok: false; readonly error: string };

/**
 * One LIST per live kind per destination cluster, all namespaces. A kind the cluster does not serve (404:
 * no KEDA) holds nothing; any other failure makes the cluster's live objects unknown.
 */
export async function readLiveObjects(
  names: readonly string[],
  clients: ReadonlyMap<string, ClusterApi>,
  concurrency: number,
): Promise<Map<string, LiveRead>> {
  const settled = await mapWithConcurrency(names, concurrency, async (name) => {
    const api = clients.get(name);
    if (api === undefined) throw new Error(`no client for cluster ${name}`);
    const lists = await Promise.all(
      LIVE_RESOURCES.map((resource) =>
        api.list(resource).then(
          (list) => list.items.map((item) => withType(item, resource)),
          (error: unknown) => {
            if (error instanceof UpstreamError && error.upstreamStatus === 404) return [];
            throw error;
          },
        ),
      ),
    );
    const byNamespace = new Map<string, unknown[]>();
    for (const object of lists.flat()) {
      const namespace = object.metadata.namespace ?? '';
      const bucket = byNamespace.get(namespace);
      if (bucket === undefined) byNamespace.set(namespace, [object]);
      else bucket.push(object);
    }
    return byNamespace;
  });
  const out = new Map<string, LiveRead>();
  settled.forEach((result, i) => {
    const name = names[i] ?? '';
    out.set(
      name,
      result.status === 'fulfilled'
        ? { ok: true, byNamespace: result.value }
        : { ok: false, error: errorMessage(result.reason) },
    );
  });
  return out;
}

/** Items of a LIST carry no apiVersion/kind (the list has them); the audit reads objects that do. */
function withType(item: KubeObject, resource: KubeResource): KubeObject {
  const apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
  return { ...item, apiVersion: item.apiVersion ?? apiVersion, kind: item.kind ?? resource.kind };
}
