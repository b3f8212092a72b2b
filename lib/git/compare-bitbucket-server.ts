import { authorization } from './compare-bitbucket.js';
import { type CompareContext, getJson, MAX_COMPARE_PAGES, unknown } from './compare-http.js';
import type { CompareRequest, CompareResult } from './compare-model.js';

interface ServerPath {
  readonly toString?: unknown;
  readonly components?: unknown;
}

interface ChangesPage {
  readonly values?: readonly { readonly path?: ServerPath; readonly srcPath?: ServerPath }[];
  readonly isLastPage?: unknown;
  readonly nextPageStart?: unknown;
}

const PAGE_LIMIT = 1000;

/**
 * Bitbucket Server / Data Center `GET /rest/api/latest/projects/{key}/repos/{slug}/changes?since=
 * {before}&until={after}`: the changes between the two commits themselves (not from a merge base), paged
 * with `start` / `nextPageStart` until `isLastPage`. Moves and copies give both paths.
 */
export async function compareOnBitbucketServer(
  request: CompareRequest,
  context: CompareContext,
): Promise<CompareResult> {
  const [project, slug] = request.repository.split('/').map(encodeURIComponent);
  const base = `${request.apiBaseUrl.replace(/\/+$/, '')}/rest/api/latest/projects/${project}/repos/${slug}/changes`;
  const headers = authorization(request);
  const files = new Set<string>();
  let start = 0;
  for (let page = 0; page < MAX_COMPARE_PAGES; page += 1) {
    const query = new URLSearchParams({
      since: request.before,
      until: request.after,
      start: String(start),
      limit: String(PAGE_LIMIT),
    });
    const body = (await getJson(`${base}?${query}`, headers, context)) as ChangesPage | null;
    if (body === null || typeof body !== 'object' || !Array.isArray(body.values)) {
      return unknown('the changes answer lists no values');
    }
    for (const change of body.values) {
      for (const path of [pathText(change?.path), pathText(change?.srcPath)]) {
        if (path !== undefined) files.add(path);
      }
    }
    if (body.isLastPage !== false) return { known: true, files: [...files].sort() };
    if (typeof body.nextPageStart !== 'number' || body.nextPageStart <= start) {
      return unknown('the changes answer has no next page start');
    }
    start = body.nextPageStart;
  }
  return unknown(`truncated: more than ${MAX_COMPARE_PAGES} pages of changes`);
}

function pathText(path: ServerPath | undefined): string | undefined {
  if (path === undefined || path === null) return undefined;
  if (typeof path.toString === 'string' && path.toString !== '') return path.toString;
  if (Array.isArray(path.components) && path.components.every((c) => typeof c === 'string')) {
    return path.components.join('/') || undefined;
  }
  return undefined;
}
