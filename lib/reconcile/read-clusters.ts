import { createLimiter, type Limiter, mapWithConcurrency } from '../concurrency.js';
import { errorMessage, UpstreamError } from '../errors.js';
import { argocdNamespaces, type FleetConfig } from '../fleet/fleet-config.js';
import type { ClusterApi, KubeObject } from '../kubernetes/cluster-api.js';
import {
  DEFAULT_PAGE_SIZE,
  LIST_PAGES_IN_FLIGHT,
  type ListPage,
  listPages,
} from '../kubernetes/list-pages.js';
import {
  APPLICATION_SETS,
  APPLICATIONS,
  HORIZONTAL_POD_AUTOSCALERS,
  type KubeResource,
  SCALED_OBJECTS,
} from '../kubernetes/resources.js';
import { slimApplication } from '../kubernetes/slim-object.js';

/** The audit reads AppProjects only when `readAppProjects` is on. */
export { APP_PROJECTS } from '../kubernetes/resources.js';

import { APP_PROJECTS } from '../kubernetes/resources.js';

/** The live kinds the audit rules read on a destination cluster. */
export const LIVE_RESOURCES: readonly KubeResource[] = [HORIZONTAL_POD_AUTOSCALERS, SCALED_OBJECTS];

/** One Argo CD cluster as a pass reads it: its AppProjects up front, its Applications page by page. */
export interface ArgoClusterRead {
  readonly cluster: string;
  /**
   * The cluster's Applications (every namespace its Argo CD keeps them in, one after another), 500 a page,
   * slimmed, each page listed only when the one before was consumed. A failed LIST throws from the
   * iteration; a page marked `restarted` begins the listing again (an expired continue token).
   */
  readonly pages: AsyncIterable<ListPage>;
  /** AppProjects by name; absent when not read. */
  readonly appProjects?: ReadonlyMap<string, unknown>;
  readonly appProjectsError?: string;
  /** With `control: pin` repositories: the cluster's ApplicationSets (owners that could revert a pin). */
  readonly applicationSets?: readonly unknown[];
}

export interface UnreadCluster {
  readonly name: string;
  readonly error: string;
}

export interface ArgoClustersRead<T> {
  /** The clusters whose every page was visited, with what the visit returned, in fleet order. */
  readonly read: readonly { readonly cluster: string; readonly value: T }[];
  readonly unread: readonly UnreadCluster[];
}

/**
 * Each cluster running Argo CD, clusters in parallel: its AppProjects if asked, then `visit` consumes its
 * pages of Applications (so a cluster holds one page at a time, not its whole listing). A cluster whose
 * LIST (or visit) fails is unread: what its visit gathered is dropped, as if nothing had been listed.
 */
export async function readArgoClusters<T>(
  fleet: FleetConfig,
  clients: ReadonlyMap<string, ClusterApi>,
  options: {
    readonly concurrency: number;
    readonly readAppProjects: boolean;
    readonly readApplicationSets?: boolean;
  },
  visit: (cluster: ArgoClusterRead) => Promise<T>,
): Promise<ArgoClustersRead<T>> {
  const argo = fleet.clusters.flatMap((c) => (c.argocd === undefined ? [] : [{ ...c, argocd: c.argocd }]));
  const pages = createLimiter(LIST_PAGES_IN_FLIGHT);
  const settled = await mapWithConcurrency(argo, options.concurrency, async (cluster) => {
    const api = clients.get(cluster.name);
    if (api === undefined) throw new Error(`no client for cluster ${cluster.name}`);
    const projects = options.readAppProjects
      ? await api.list(APP_PROJECTS, cluster.argocd.namespace).then(
          (list) => ({ list }),
          (error: unknown) => ({ error: errorMessage(error) }),
        )
      : undefined;
    // Best effort: without them a pinned app's owner check sees only the parents of its own page.
    const applicationSets =
      options.readApplicationSets === true
        ? (
            await Promise.all(
              argocdNamespaces(cluster).map((ns) =>
                api.list(APPLICATION_SETS, ns).then(
                  (list) => list.items.map((item) => withType(item, APPLICATION_SETS) as unknown),
                  () => [] as unknown[],
                ),
              ),
            )
          ).flat()
        : undefined;
    return visit({
      cluster: cluster.name,
      pages: applicationPages(api, argocdNamespaces(cluster), pages),
      ...(applicationSets === undefined ? {} : { applicationSets }),
      ...(projects === undefined
        ? {}
        : 'error' in projects
          ? { appProjectsError: projects.error }
          : {
              appProjects: new Map(
                projects.list.items.map((p) => [p.metadata.name, withType(p, APP_PROJECTS)] as const),
              ),
            }),
    });
  });
  const read: { cluster: string; value: T }[] = [];
  const unread: UnreadCluster[] = [];
  settled.forEach((result, i) => {
    const name = argo[i]?.name ?? '';
    if (result.status === 'fulfilled') read.push({ cluster: name, value: result.value });
    else unread.push({ name, error: errorMessage(result.reason) });
  });
  return { read, unread };
}

/** The audit reads no more of an Application than `slimApplication` keeps. */
async function* applicationPages(
  api: ClusterApi,
  namespaces: readonly string[],
  pages: Limiter,
): AsyncGenerator<ListPage> {
  const slim = (item: KubeObject) => slimApplication(withType(item, APPLICATIONS));
  for (const ns of namespaces) {
    yield* listPages(api, APPLICATIONS, ns, { limit: DEFAULT_PAGE_SIZE, slim, pages });
  }
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

/** Live objects read as a pass meets the destinations of its apps, each cluster once. */
export interface LiveObjectsReader {
  /** Reads each named cluster's live objects not read before (concurrent loads share a read). */
  load(names: Iterable<string>): Promise<void>;
  /** What was read so far, by cluster name. */
  readonly read: ReadonlyMap<string, LiveRead>;
}

export function createLiveObjectsReader(
  clients: ReadonlyMap<string, ClusterApi>,
  concurrency: number,
): LiveObjectsReader {
  const read = new Map<string, LiveRead>();
  const reads = new Map<string, Promise<void>>();
  const limit = createLimiter(concurrency);
  return {
    read,
    async load(names) {
      const pending: Promise<void>[] = [];
      for (const name of names) {
        let reading = reads.get(name);
        if (reading === undefined) {
          reading = limit(() => readLiveObjects([name], clients, 1)).then((one) => {
            const result = one.get(name);
            if (result !== undefined) read.set(name, result);
          });
          reads.set(name, reading);
        }
        pending.push(reading);
      }
      await Promise.all(pending);
    },
  };
}

/** Items of a LIST carry no apiVersion/kind (the list has them); the audit reads objects that do. */
function withType(item: KubeObject, resource: KubeResource): KubeObject {
  const apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
  return { ...item, apiVersion: item.apiVersion ?? apiVersion, kind: item.kind ?? resource.kind };
}
