import { RedirectRefusedError } from '../http/redirect.js';
import type { Logger } from '../ports.js';
import { compareOnGitHub } from './compare-github.js';
import { compareOnGitLab } from './compare-gitlab.js';
import { type CompareContext, HttpStatusError, unknown } from './compare-http.js';

export interface CompareRequest {
  readonly provider: 'github' | 'gitlab';
  /** `https://api.github.com`, `https://ghe.example/api/v3`, `https://gitlab.example/api/v4`. */
  readonly apiBaseUrl: string;
  /** `owner/repo` (GitHub) or `group/subgroup/project` (GitLab). */
  readonly repository: string;
  /** GitLab's numeric project id; used instead of the path when given. */
  readonly projectId?: number;
  readonly before: string;
  readonly after: string;
  readonly token?: string;
}

/** Assignable to `ChangedFiles`: a complete list, or unknown so that fan-out fails open. */
export type CompareResult =
  | { readonly known: true; readonly files: readonly string[] }
  | { readonly known: false; readonly reason: 'compare-failed'; readonly detail: string };

export interface CompareOptions {
  /** Per HTTP request (default 10 s). */
  readonly timeoutMs?: number;
  /** Largest response body read (default 32 MiB); compare answers carry patches. */
  readonly maxResponseBytes?: number;
  readonly fetch?: typeof fetch;
  readonly logger?: Logger;
}

const SHA = /^[0-9a-f]{40}$/i;
const ZERO = /^0{40}$/;

/**
 * The files that differ between `before` and `after` per the provider's compare API, for pushes whose
 * payload lists none or a truncated list. Never throws: any failure is `known: false`.
 */
export async function compareCommits(
  request: CompareRequest,
  options: CompareOptions = {},
): Promise<CompareResult> {
  const context: CompareContext = {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? 32 * 1024 * 1024,
    fetch: options.fetch ?? fetch,
  };
  let result: CompareResult;
  if (!SHA.test(request.before) || !SHA.test(request.after))
    result = unknown('before and after must be full SHAs');
  else if (ZERO.test(request.before) || ZERO.test(request.after)) {
    result = unknown('a created or deleted ref has nothing to compare');
  } else {
    try {
      result =
        request.provider === 'github'
          ? await compareOnGitHub(request, context)
          : await compareOnGitLab(request, context);
    } catch (error) {
      result = unknown(failureDetail(error, context.timeoutMs));
    }
  }
  if (!result.known) {
    options.logger?.warn('compare failed, files unknown', {
      provider: request.provider,
      repo: request.repository,
      detail: result.detail,
    });
  }
  return result;
}

function failureDetail(error: unknown, timeoutMs: number): string {
  if (error instanceof HttpStatusError) return `the API answered HTTP ${error.status}`;
  if (error instanceof RedirectRefusedError) return `the API answered with a ${error.message}`;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  if (error instanceof SyntaxError) return 'the answer is not JSON';
  return error instanceof Error ? error.message : 'request failed';
}
