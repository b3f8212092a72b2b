import { RedirectRefusedError } from '../http/redirect.js';
import type { Logger } from '../ports.js';
import { compareOnAzureDevOps } from './compare-azure-devops.js';
import { compareOnBitbucket } from './compare-bitbucket.js';
import { compareOnBitbucketServer } from './compare-bitbucket-server.js';
import { compareOnGitHub } from './compare-github.js';
import { compareOnGitLab } from './compare-gitlab.js';
import { type CompareContext, HttpStatusError, unknown } from './compare-http.js';

export const COMPARE_PROVIDERS = [
  'github',
  'gitlab',
  'bitbucket',
  'bitbucket-server',
  'azure-devops',
] as const;
export type CompareProvider = (typeof COMPARE_PROVIDERS)[number];

export interface CompareRequest {
  readonly provider: CompareProvider;
  /**
   * `https://api.github.com`, `https://ghe.example/api/v3`, `https://gitlab.example/api/v4`,
   * `https://api.bitbucket.org`, a Bitbucket Server base (`https://bbs.example[/context]`), or an Azure
   * DevOps collection (`https://dev.azure.com/org`).
   */
  readonly apiBaseUrl: string;
  /**
   * `owner/repo` (GitHub), `group/subgroup/project` (GitLab), `workspace/repo` (Bitbucket),
   * `PROJECT/repo` (Bitbucket Server), `project/repo` (Azure DevOps).
   */
  readonly repository: string;
  /** GitLab's numeric project id; used instead of the path when given. */
  readonly projectId?: number;
  readonly before: string;
  readonly after: string;
  readonly token?: string;
  /**
   * With `token`: basic auth as this user (a Bitbucket app password or API token) instead of a bearer
   * token; `x-token-auth` (Bitbucket's name for an access token) stays a bearer token, as in Argo CD.
   */
  readonly username?: string;
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

const CLIENTS: Readonly<
  Record<CompareProvider, (request: CompareRequest, context: CompareContext) => Promise<CompareResult>>
> = {
  github: compareOnGitHub,
  gitlab: compareOnGitLab,
  bitbucket: compareOnBitbucket,
  'bitbucket-server': compareOnBitbucketServer,
  'azure-devops': compareOnAzureDevOps,
};

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
      result = await CLIENTS[request.provider](request, context);
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
