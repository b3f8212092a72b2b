import { UpstreamError } from '../errors.js';
import type { ClusterApi, KubeObject } from './cluster-api.js';
import type { KubeResource } from './resources.js';

/** Objects per LIST page: 500 slim Applications are ~0.5 MB kept, a real page's JSON 5-15 MB parsed. */
export const DEFAULT_PAGE_SIZE = 500;

/**
 * Every page of a LIST (`limit` + `continue`), so no single answer holds a whole hub's Applications; `slim`
 * runs on each item as its page arrives, so only the slim copies outlive the page. No `resourceVersion=0`:
 * an API server answering from its watch cache ignores `limit` (before Kubernetes 1.31's consistent cache
 * reads it sends everything in one answer), which is the very response size paging avoids; the default
 * (consistent) read pages. An expired continue token (410 Gone) starts the list again, once.
 */
export async function listAllPages(
  api: ClusterApi,
  resource: KubeResource,
  namespace: string | undefined,
  limit: number,
  slim: (object: KubeObject) => KubeObject = (object) => object,
): Promise<KubeObject[]> {
  for (let restart = 0; ; restart++) {
    const items: KubeObject[] = [];
    let next: string | undefined;
    try {
      do {
        const page = await api.list(resource, namespace, {
          limit,
          ...(next === undefined ? {} : { continue: next }),
        });
        for (const item of page.items) items.push(slim(item));
        next = page.continue;
      } while (next !== undefined);
      return items;
    } catch (error) {
      if (restart > 0 || next === undefined || !isGone(error)) throw error;
    }
  }
}

function isGone(error: unknown): boolean {
  return error instanceof UpstreamError && error.upstreamStatus === 410;
}
