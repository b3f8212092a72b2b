import { type CompareContext, getJson, unknown } from './compare-http.js';
import type { CompareRequest, CompareResult } from './compare-model.js';

interface GitLabComparison {
  readonly diffs?: readonly { readonly old_path?: unknown; readonly new_path?: unknown }[];
  /** GitLab sets this when the diff collection overflowed its limits: the list is incomplete. */
  readonly compare_timeout?: boolean;
}

/**
 * `GET /projects/{id}/repository/compare?from=&to=&straight=true`: `straight` diffs `before` against
 * `after` directly (not from the merge base), which is right for force pushes too. Collapsed diffs still
 * name their paths; only an overflow (`compare_timeout`) makes the list incomplete.
 */
export async function compareOnGitLab(
  request: CompareRequest,
  context: CompareContext,
): Promise<CompareResult> {
  const project =
    request.projectId === undefined ? encodeURIComponent(request.repository) : String(request.projectId);
  const query = new URLSearchParams({ from: request.before, to: request.after, straight: 'true' });
  const url = `${request.apiBaseUrl.replace(/\/+$/, '')}/projects/${project}/repository/compare?${query}`;
  const body = (await getJson(
    url,
    request.token === undefined ? {} : { 'PRIVATE-TOKEN': request.token },
    context,
  )) as GitLabComparison | null;
  if (body === null || typeof body !== 'object' || !Array.isArray(body.diffs)) {
    return unknown('the comparison lists no diffs');
  }
  if (body.compare_timeout === true) return unknown('truncated: GitLab overflowed its diff limits');
  const files = new Set<string>();
  for (const diff of body.diffs) {
    if (typeof diff?.old_path === 'string') files.add(diff.old_path);
    if (typeof diff?.new_path === 'string') files.add(diff.new_path);
  }
  return { known: true, files: [...files].sort() };
}
