import type { Limiter } from '../concurrency.js';
import { UpstreamError } from '../errors.js';
import type { ClusterApi, KubeObject } from './cluster-api.js';
import type { KubeResource } from './resources.js';

/** Objects per LIST page: 500 slim Applications are ~0.5 MB kept, a real page's JSON 5-15 MB parsed. */
export const DEFAULT_PAGE_SIZE = 500;

/**
 * Pages of Applications read and parsed at once in one process, over every cluster and caller: a page of
 * 500 realistic Applications is ~9 MB of JSON, held three times while it is read (the response's bytes, its
 * text, the parsed objects, ~30 MB in all) until it is slimmed. Ten track polls of one invocation, or a
 * reconcile pass reading 16 clusters at once, would otherwise hold hundreds of MB of pages at the same time.
 * A slot is taken once the API server has answered (`ListOptions.slot`), not while it works on the answer:
 * held around the whole request, two slots made a batch's five work items list their clusters one by one
 * (each waiting out the others' round trips).
 */
export const LIST_PAGES_IN_FLIGHT = 2;

export interface ListPagesOptions {
  /** Objects per page (`limit`). */
  readonly limit: number;
  /** Runs on each item as its page arrives, so only the slim copies outlive the page. */
  readonly slim?: (object: KubeObject) => KubeObject;
  /** Shared by the lists of one process, so at most so many pages are read at once (see `LIST_PAGES_IN_FLIGHT`). */
  readonly pages?: Limiter;
}

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
  options: ListPagesOptions,
): AsyncGenerator<ListPage, void, undefined> {
  const { limit, slim, pages } = options;
  let restarted = false;
  for (let restart = 0; ; restart++) {
    let next: string | undefined;
    try {
      do {
        const token = next;
        // The slot is taken once the server answers, and the page slimmed before it is given back: the
        // full objects never outlive the slot, and a slow server holds none.
        const page = await api.list(resource, namespace, {
          limit,
          ...(token === undefined ? {} : { continue: token }),
          ...(pages === undefined ? {} : { slot: pages }),
          ...(slim === undefined ? {} : { slim }),
        });
        next = page.continue;
        const items = page.items;
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
  options: ListPagesOptions,
): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  for await (const page of listPages(api, resource, namespace, options)) {
    if (page.restarted) items.length = 0;
    for (const item of page.items) items.push(item);
  }
  return items;
}

function isGone(error: unknown): boolean {
  return error instanceof UpstreamError && error.upstreamStatus === 410;
}
