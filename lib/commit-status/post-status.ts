import { AppError } from '../errors.js';
import type { StatusRequest } from './host-request.js';

/** How long posting one status may take: a few attempts, a cap on the waits (Retry-After included). */
export interface StatusRetryBudget {
  readonly maxAttempts: number;
  readonly maxWaitMs: number;
  readonly backoffMs: number;
  readonly timeoutMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_STATUS_BUDGET: StatusRetryBudget = {
  maxAttempts: 3,
  maxWaitMs: 5_000,
  backoffMs: 300,
  timeoutMs: 5_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A status the host did not take. Its message names the HTTP status only: never a URL query or a token. */
export class CommitStatusError extends AppError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message, { code: 'commit-status' });
  }
}

/**
 * POSTs one status: 429 and 5xx (and network failures) are retried within the budget, honouring
 * Retry-After; a redirect is refused rather than followed, so the token never reaches another origin.
 */
export async function postStatus(
  request: StatusRequest,
  options: { readonly fetch?: typeof fetch; readonly budget?: StatusRetryBudget } = {},
): Promise<void> {
  const budget = options.budget ?? DEFAULT_STATUS_BUDGET;
  const doFetch = options.fetch ?? fetch;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(request, doFetch, budget.timeoutMs);
    } catch (thrown) {
      const error =
        thrown instanceof CommitStatusError ? thrown : new CommitStatusError('host unreachable', true);
      if (!error.retryable || attempt >= budget.maxAttempts) throw error;
      const wait = error.retryAfterMs ?? budget.backoffMs * attempt;
      if (waited + wait > budget.maxWaitMs) throw error;
      await budget.sleep(wait);
      waited += wait;
    }
  }
}

async function once(request: StatusRequest, doFetch: typeof fetch, timeoutMs: number): Promise<void> {
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as { name?: string }).name === 'TimeoutError';
    throw new CommitStatusError(timedOut ? `no answer within ${timeoutMs} ms` : 'host unreachable', true);
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return;
  const { status } = response;
  if (status >= 300 && status < 400) {
    throw new CommitStatusError(`HTTP ${status}: redirect refused (the token is not sent elsewhere)`, false);
  }
  if (status === 429 || status >= 500) {
    throw new CommitStatusError(`HTTP ${status}`, true, retryAfterMs(response.headers.get('retry-after')));
  }
  throw new CommitStatusError(`HTTP ${status}`, false);
}

/** Seconds or an HTTP date; absent or unreadable: the budget's own backoff. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
