import { RedirectRefusedError } from '../http/redirect.js';
import { compareOnAzureDevOps } from './compare-azure-devops.js';
import { compareOnBitbucket } from './compare-bitbucket.js';
import { compareOnBitbucketServer } from './compare-bitbucket-server.js';
import { compareOnGitHub } from './compare-github.js';
import { compareOnGitLab } from './compare-gitlab.js';
import { type CompareContext, HttpStatusError, unknown } from './compare-http.js';
import type { CompareOptions, CompareProvider, CompareRequest, CompareResult } from './compare-model.js';

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
