import { UpstreamError } from '../errors.js';
import type { ClusterApi, KubeObject } from './cluster-api.js';
import type { KubeResource } from './resources.js';

/** Objects per LIST page: 500 slim Applications are ~0.5 MB kept, a real page's JSON 5-15 MB parsed. */
export const DEFAULT_PAGE_SIZE = 500;

/** One page of a LIST, its items slimmed. */
export interface ListPage {
  readonly items: readonly KubeObject[];
  /** The first page of a listing started again (its continue token expired): earlier pages' objects repeat. */
  readonly restarted: boolean;
}

/**
 * The pages of a LIST (`limit` + `continue`), each fetched only when the consumer asks for it, so no single
 * answer holds a whole hub's Applications and a consumer that drops each page holds one at a time. `slim`
 * runs on each item as its page arrives, so only the slim copies outlive the page. No `resourceVersion=0`:
 * an API server answering from its watch cache ignores `limit` (before Kubernetes 1.31's consistent cache
 * reads it sends everything in one answer), which is the very response size paging avoids; the default
 * (consistent) read pages. An expired continue token (410 Gone) starts the list again, once: the first page
 * of the new listing says `restarted`.
 */
export async function* listPages(
  api: ClusterApi,
  resource: KubeResource,
  namespace: string | undefined,
  limit: number,
  slim: (object: KubeObject) => KubeObject = (object) => object,
): AsyncGenerator<ListPage, void, undefined> {
  let restarted = false;
  for (let restart = 0; ; restart++) {
    let next: string | undefined;
    try {
      do {
        const page = await api.list(resource, namespace, {
          limit,
          ...(next === undefined ? {} : { continue: next }),
        });
        next = page.continue;
        const items = page.items.map((item) => slim(item));
        yield { items, restarted };
        restarted = false;
      } while (next !== undefined);
      return;
    } catch (error) {
      if (restart > 0 || next === undefined || !isGone(error)) throw error;
      restarted = true;
    }
  }
}

/** Every page of a LIST (see `listPages`), as one array of slim objects. */
export async function listAllPages(
  api: ClusterApi,
  resource: KubeResource,
  namespace: string | undefined,
  limit: number,
  slim?: (object: KubeObject) => KubeObject,
): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  for await (const page of listPages(api, resource, namespace, limit, slim)) {
    if (page.restarted) items.length = 0;
    for (const item of page.items) items.push(item);
  }
  return items;
}

function isGone(error: unknown): boolean {
  return error instanceof UpstreamError && error.upstreamStatus === 410;
}
