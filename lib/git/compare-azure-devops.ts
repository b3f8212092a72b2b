import { type CompareContext, getJson, MAX_COMPARE_PAGES, unknown } from './compare-http.js';
import type { CompareRequest, CompareResult } from './compare-model.js';

interface DiffsPage {
  readonly changes?: readonly {
    readonly item?: {
      readonly path?: unknown;
      readonly isFolder?: unknown;
      readonly gitObjectType?: unknown;
    };
    readonly originalPath?: unknown;
    readonly sourceServerItem?: unknown;
  }[];
}

const PAGE_SIZE = 2000;

/**
 * Azure DevOps `GET {org}/{project}/_apis/git/repositories/{repo}/diffs/commits` with
 * `diffCommonCommit=false`: the diff of the two commits themselves (not from their merge base), paged
 * with `$top`/`$skip`. Paths come with a leading `/`; folders are left out; renames give both paths.
 * A personal access token is sent as basic auth with an empty user name, as Azure expects.
 */
export async function compareOnAzureDevOps(
  request: CompareRequest,
  context: CompareContext,
): Promise<CompareResult> {
  const [project, repo] = request.repository.split('/').map(encodeURIComponent);
  const base = `${request.apiBaseUrl.replace(/\/+$/, '')}/${project}/_apis/git/repositories/${repo}/diffs/commits`;
  const headers =
    request.token === undefined
      ? {}
      : { Authorization: `Basic ${Buffer.from(`:${request.token}`).toString('base64')}` };
  const files = new Set<string>();
  for (let page = 0; page < MAX_COMPARE_PAGES; page += 1) {
    const query = new URLSearchParams({
      baseVersion: request.before,
      baseVersionType: 'commit',
      targetVersion: request.after,
      targetVersionType: 'commit',
      diffCommonCommit: 'false',
      $top: String(PAGE_SIZE),
      $skip: String(page * PAGE_SIZE),
      'api-version': '7.1',
    });
    const body = (await getJson(`${base}?${query}`, headers, context)) as DiffsPage | null;
    if (body === null || typeof body !== 'object' || !Array.isArray(body.changes)) {
      return unknown('the diff lists no changes');
    }
    for (const change of body.changes) {
      const item = change?.item;
      if (item?.isFolder === true || item?.gitObjectType === 'tree') continue;
      for (const path of [item?.path, change?.originalPath, change?.sourceServerItem]) {
        if (typeof path === 'string' && path.replace(/^\/+/, '') !== '') files.add(path.replace(/^\/+/, ''));
      }
    }
    if (body.changes.length < PAGE_SIZE) return { known: true, files: [...files].sort() };
  }
  return unknown(`truncated: more than ${MAX_COMPARE_PAGES * PAGE_SIZE} changes`);
}
