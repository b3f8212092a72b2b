import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../../lib/concurrency.js';
import { UpstreamError } from '../../../lib/errors.js';
import type { ClusterApi, KubeList, ListOptions } from '../../../lib/kubernetes/cluster-api.js';
import { listAllPages, listPages } from '../../../lib/kubernetes/list-pages.js';
import { APPLICATIONS } from '../../../lib/kubernetes/resources.js';

/** A server of `count` objects paging by `limit`; records how many answers were read at once at most. */
function server(count: number, options: { goneAt?: string } = {}) {
  const asked: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let gone = options.goneAt;
  const unused = () => Promise.reject(new Error('not used'));
  const api: ClusterApi = {
    cluster: 'hub',
    list: async (_resource, _namespace, list?: ListOptions): Promise<KubeList> => {
      const token = list?.continue;
      asked.push(token ?? 'first');
      if (token !== undefined && token === gone) {
        gone = undefined;
        throw new UpstreamError('expired', { retryable: false, upstreamStatus: 410 });
      }
      // The server's time to answer, then the body read within the caller's slot (as the cluster client does).
      await new Promise((resolve) => setTimeout(resolve, 1));
      const read = async (): Promise<KubeList> => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        const start = token === undefined ? 0 : Number(token);
        const end = Math.min(count, start + (list?.limit ?? count));
        const items = Array.from({ length: end - start }, (_, i) => ({
          metadata: { name: `app-${start + i}` },
        }));
        return {
          items: list?.slim === undefined ? items : items.map(list.slim),
          resourceVersion: '1',
          ...(end < count ? { continue: String(end) } : {}),
        };
      };
      return list?.slot === undefined ? read() : list.slot(read);
    },
    get: unused,
    mergePatch: unused,
    mergePatchQuiet: unused,
    jsonPatch: unused,
  };
  return { api, asked, maxInFlight: () => maxInFlight };
}

describe('listPages', () => {
  it('asks for a page only when the one before was consumed', async () => {
    const { api, asked } = server(5);
    const pages = listPages(api, APPLICATIONS, 'argocd', { limit: 2 });
    expect(asked).toEqual([]);
    const first = await pages.next();
    expect(first.value).toMatchObject({ items: [{}, {}], restarted: false });
    expect(asked).toEqual(['first']);
    await pages.next();
    expect(asked).toEqual(['first', '2']);
  });

  it('marks the first page of a listing started again after its continue token expired', async () => {
    const { api } = server(5, { goneAt: '4' });
    const seen: { names: string[]; restarted: boolean }[] = [];
    for await (const page of listPages(api, APPLICATIONS, 'argocd', { limit: 2 })) {
      seen.push({ names: page.items.map((o) => o.metadata.name), restarted: page.restarted });
    }
    expect(seen.map((p) => p.restarted)).toEqual([false, false, true, false, false]);
    const all = await listAllPages(server(5, { goneAt: '4' }).api, APPLICATIONS, 'argocd', { limit: 2 });
    expect(all.map((o) => o.metadata.name)).toEqual(['app-0', 'app-1', 'app-2', 'app-3', 'app-4']);
  });

  it('reads no more pages at once than the shared limiter allows, over every listing', async () => {
    const { api, maxInFlight } = server(6);
    const pages = createLimiter(2);
    const lists = await Promise.all(
      Array.from({ length: 5 }, () => listAllPages(api, APPLICATIONS, 'argocd', { limit: 2, pages })),
    );
    expect(lists.map((l) => l.length)).toEqual([6, 6, 6, 6, 6]);
    expect(maxInFlight()).toBe(2);
  });

  it('slims each item before its page is handed on', async () => {
    const { api } = server(3);
    const all = await listAllPages(api, APPLICATIONS, 'argocd', {
      limit: 2,
      slim: (o) => ({ metadata: { name: o.metadata.name.toUpperCase() } }),
    });
    expect(all.map((o) => o.metadata.name)).toEqual(['APP-0', 'APP-1', 'APP-2']);
  });
});
