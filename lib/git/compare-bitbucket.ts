import { type CompareContext, getJson, MAX_COMPARE_PAGES, sameOrigin, unknown } from './compare-http.js';
import type { CompareRequest, CompareResult } from './compare-model.js';

interface DiffstatPage {
  readonly values?: readonly {
    readonly old?: { path?: unknown } | null;
    readonly new?: { path?: unknown } | null;
  }[];
  readonly next?: unknown;
}

/**
 * Bitbucket Cloud `GET /2.0/repositories/{workspace}/{repo}/diffstat/{after}..{before}?topic=false`:
 * `topic=false` is the plain two-dot diff of the two commits (not from their merge base), so a force
 * push's dropped files are listed too; renames give both paths, deletions their old path (Argo CD reads
 * `new.path` only, so a deleted file there becomes ""). Every page is read through `next`.
 */
export async function compareOnBitbucket(
  request: CompareRequest,
  context: CompareContext,
): Promise<CompareResult> {
  const [workspace, slug] = request.repository.split('/').map(encodeURIComponent);
  const base = request.apiBaseUrl.replace(/\/+$/, '');
  const query = new URLSearchParams({ topic: 'false', renames: 'true', pagelen: '500' });
  let url: unknown = `${base}/2.0/repositories/${workspace}/${slug}/diffstat/${request.after}..${request.before}?${query}`;
  const headers = authorization(request);
  const files = new Set<string>();
  for (let page = 0; page < MAX_COMPARE_PAGES; page += 1) {
    if (!sameOrigin(url, base)) return unknown('the next page is on another host');
    const body = (await getJson(url, headers, context)) as DiffstatPage | null;
    if (body === null || typeof body !== 'object' || !Array.isArray(body.values)) {
      return unknown('the diffstat lists no values');
    }
    for (const entry of body.values) {
      if (typeof entry?.old?.path === 'string') files.add(entry.old.path);
      if (typeof entry?.new?.path === 'string') files.add(entry.new.path);
    }
    if (body.next === undefined || body.next === null) return { known: true, files: [...files].sort() };
    url = body.next;
  }
  return unknown(`truncated: more than ${MAX_COMPARE_PAGES} diffstat pages`);
}

/** A bearer token, or basic auth when the credentials name a user (Argo CD's `newBitbucketClient`). */
export function authorization(request: CompareRequest): Record<string, string> {
  if (request.token === undefined) return {};
  if (request.username === undefined || request.username === 'x-token-auth') {
    return { Authorization: `Bearer ${request.token}` };
  }
  const basic = Buffer.from(`${request.username}:${request.token}`).toString('base64');
  return { Authorization: `Basic ${basic}` };
}
