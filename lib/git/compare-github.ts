import { type CompareContext, getJson, unknown } from './compare-http.js';
import type { CompareRequest, CompareResult } from './compare-model.js';

/** GitHub lists at most this many files for a whole comparison, on the first page only. */
export const GITHUB_COMPARE_FILE_CAP = 300;

interface GitHubComparison {
  readonly status?: string;
  readonly files?: readonly { readonly filename?: unknown; readonly previous_filename?: unknown }[];
}

/**
 * `GET /repos/{owner}/{repo}/compare/{before}...{after}`. The three-dot form diffs the merge base
 * against `after`; after a force push (`diverged`) or a reset (`behind`) that misses what only `before`
 * had, so the reverse comparison is added: the union covers every path that differs between the two.
 */
export async function compareOnGitHub(
  request: CompareRequest,
  context: CompareContext,
): Promise<CompareResult> {
  const forward = await comparison(request, request.before, request.after, context);
  if (!forward.known) return forward.result;
  if (forward.status !== 'diverged' && forward.status !== 'behind') return forward.result;
  const backward = await comparison(request, request.after, request.before, context);
  if (!backward.known) return backward.result;
  return { known: true, files: [...new Set([...forward.files, ...backward.files])].sort() };
}

type Side =
  | { known: true; status: string | undefined; files: string[]; result: CompareResult }
  | { known: false; result: CompareResult };

async function comparison(
  request: CompareRequest,
  base: string,
  head: string,
  context: CompareContext,
): Promise<Side> {
  const repo = request.repository.split('/').map(encodeURIComponent).join('/');
  // Files come on the first page only; one commit per page keeps the answer small.
  const url = `${request.apiBaseUrl.replace(/\/+$/, '')}/repos/${repo}/compare/${base}...${head}?per_page=1&page=1`;
  const body = (await getJson(
    url,
    {
      Accept: 'application/vnd.github+json',
      'X-GitHub-Api-Version': '2022-11-28',
      ...(request.token === undefined ? {} : { Authorization: `Bearer ${request.token}` }),
    },
    context,
  )) as GitHubComparison | null;
  if (body === null || typeof body !== 'object')
    return { known: false, result: unknown('the answer is not a comparison') };
  const listed = body.files ?? (body.status === 'identical' ? [] : undefined);
  if (!Array.isArray(listed)) return { known: false, result: unknown('the comparison lists no files') };
  if (listed.length >= GITHUB_COMPARE_FILE_CAP) {
    return {
      known: false,
      result: unknown(`truncated: GitHub lists at most ${GITHUB_COMPARE_FILE_CAP} files`),
    };
  }
  const files = new Set<string>();
  for (const file of listed) {
    if (typeof file?.filename === 'string') files.add(file.filename);
    if (typeof file?.previous_filename === 'string') files.add(file.previous_filename);
  }
  const sorted = [...files].sort();
  return { known: true, status: body.status, files: sorted, result: { known: true, files: sorted } };
}
