import { DEFAULT_STATUS_BUDGET, type StatusRetryBudget } from '../commit-status/post-status.js';
import { AppError } from '../errors.js';
import type { HostRequest } from './deployment-request.js';

/** A deployment call the host did not take. Its message names the HTTP status only: never a URL or a token. */
export class DeploymentError extends AppError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message, { code: 'deployment' });
  }
}

export interface HostCallOptions {
  readonly fetch?: typeof fetch;
  /** The commit status budget: a 5 s timeout per attempt, at most 3 attempts and 5 s of waiting. */
  readonly budget?: StatusRetryBudget;
}

/**
 * Sends one deployments API call and returns its JSON answer (`{}` when it has none): 429 and 5xx (and
 * network failures) are retried within the budget, honouring Retry-After; a redirect is refused rather than
 * followed, so the token never reaches another origin. A non-idempotent create is retried too: the host
 * answered 5xx or nothing, and a second deployment of one environment is the lesser harm than none.
 */
export async function callHost(request: HostRequest, options: HostCallOptions = {}): Promise<unknown> {
  const budget = options.budget ?? DEFAULT_STATUS_BUDGET;
  const doFetch = options.fetch ?? fetch;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(request, doFetch, budget.timeoutMs);
    } catch (thrown) {
      const error =
        thrown instanceof DeploymentError ? thrown : new DeploymentError('host unreachable', true);
      if (!error.retryable || attempt >= budget.maxAttempts) throw error;
      const wait = error.retryAfterMs ?? budget.backoffMs * attempt;
      if (waited + wait > budget.maxWaitMs) throw error;
      await budget.sleep(wait);
      waited += wait;
    }
  }
}

async function once(request: HostRequest, doFetch: typeof fetch, timeoutMs: number): Promise<unknown> {
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    throw timeoutOr(error, timeoutMs);
  }
  const { status } = response;
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    if (status >= 300 && status < 400)
      throw new DeploymentError(`HTTP ${status}: redirect refused (the token is not sent elsewhere)`, false);
    if (status === 429 || status >= 500)
      throw new DeploymentError(`HTTP ${status}`, true, retryAfterMs(response.headers.get('retry-after')));
    throw new DeploymentError(`HTTP ${status}`, false);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw timeoutOr(error, timeoutMs);
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DeploymentError(`HTTP ${status}: the answer is not JSON`, false);
  }
}

function timeoutOr(error: unknown, timeoutMs: number): DeploymentError {
  const timedOut = (error as { name?: string }).name === 'TimeoutError';
  return new DeploymentError(timedOut ? `no answer within ${timeoutMs} ms` : 'host unreachable', true);
}

/** Seconds or an HTTP date; absent or unreadable: the budget's own backoff. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The `id` of a created deployment (a number on both hosts), as text. */
export function deploymentIdOf(answer: unknown): string | undefined {
  const id = (answer as { id?: unknown } | null)?.id;
  return typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : undefined;
}
