import { AppError } from '../errors.js';
import { type RetrySchedule, retryAfterMs, sleepFor, withRetries } from './retry-schedule.js';

export { retryAfterMs } from './retry-schedule.js';

/**
 * One call to a Git host's API for feedback (a commit status, a deployment, a check run): bounded in time,
 * retried within a budget, never following a redirect. Feedback never hurts a rollout, so the budget is
 * small and the caller records the error instead of failing.
 */
export interface HostCallRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** How long one call may take: the retry schedule (attempts, waits, their cap) and each attempt's timeout. */
export interface HostCallBudget extends RetrySchedule {
  readonly timeoutMs: number;
}

export const DEFAULT_HOST_BUDGET: HostCallBudget = {
  maxAttempts: 3,
  maxWaitMs: 5_000,
  backoffMs: 300,
  jitter: 0.2,
  timeoutMs: 5_000,
  sleep: sleepFor,
};

/** A call the host did not take. Its message names the HTTP status only: never a URL query or a token. */
export class HostCallError extends AppError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    /** The HTTP status, when the host answered. */
    readonly hostStatus?: number,
  ) {
    super(message, { code: 'host-call' });
  }
}

export interface HostCallOptions {
  readonly fetch?: typeof fetch;
  readonly budget?: HostCallBudget;
  /**
   * A refused call the caller can mend once (a 401 with a token that expired early: a fresh one): the request
   * to send instead, at once and without counting against the budget, or undefined to give up.
   */
  readonly mendOnce?: (error: HostCallError) => Promise<HostCallRequest | undefined>;
}

/**
 * Sends the request and returns its JSON answer (`{}` when it has none). 429, 5xx, network failures and a
 * rate limit's 403 (GitHub's secondary limit: `Retry-After`, or no requests left) are retried within the
 * budget, honouring `Retry-After` and `x-ratelimit-reset`; a redirect is refused rather than followed, so the
 * credential never reaches another origin.
 */
export async function callHost(request: HostCallRequest, options: HostCallOptions = {}): Promise<unknown> {
  const budget = options.budget ?? DEFAULT_HOST_BUDGET;
  const doFetch = options.fetch ?? fetch;
  let current = request;
  let mendable = options.mendOnce;
  return withRetries(budget, async () => {
    try {
      return { done: await once(current, doFetch, budget.timeoutMs) };
    } catch (thrown) {
      let error = asHostCallError(thrown);
      // Mended at once, inside this attempt: the mend does not count against the budget.
      const mend = mendable;
      if (mend !== undefined && !error.retryable) {
        mendable = undefined;
        const next = await mend(error);
        if (next !== undefined) {
          current = next;
          try {
            return { done: await once(current, doFetch, budget.timeoutMs) };
          } catch (again) {
            error = asHostCallError(again);
          }
        }
      }
      if (!error.retryable) throw error;
      return {
        again: {
          retryAfterMs: error.retryAfterMs,
          giveUp: () => {
            throw error;
          },
        },
      };
    }
  });
}

function asHostCallError(thrown: unknown): HostCallError {
  return thrown instanceof HostCallError ? thrown : new HostCallError('host unreachable', true);
}

async function once(request: HostCallRequest, doFetch: typeof fetch, timeoutMs: number): Promise<unknown> {
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw timeoutOr(error, timeoutMs);
  }
  const { status } = response;
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    if (status >= 300 && status < 400)
      throw new HostCallError(
        `HTTP ${status}: redirect refused (the token is not sent elsewhere)`,
        false,
        undefined,
        status,
      );
    const retryAfter = retryAfterMs(response.headers.get('retry-after'));
    const limited =
      status === 403 && (retryAfter !== undefined || response.headers.get('x-ratelimit-remaining') === '0');
    if (status === 429 || status >= 500 || limited) {
      const reset = retryAfter ?? (limited ? resetMs(response.headers.get('x-ratelimit-reset')) : undefined);
      throw new HostCallError(`HTTP ${status}`, true, reset, status);
    }
    throw new HostCallError(`HTTP ${status}`, false, undefined, status);
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
    // A status host may answer 2xx with a page rather than JSON: the call was taken all the same.
    return {};
  }
}

function timeoutOr(error: unknown, timeoutMs: number): HostCallError {
  const timedOut = (error as { name?: string }).name === 'TimeoutError';
  return new HostCallError(timedOut ? `no answer within ${timeoutMs} ms` : 'host unreachable', true);
}

/** `x-ratelimit-reset`: epoch seconds when GitHub's primary limit resets. */
function resetMs(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Math.max(0, Number(value.trim()) * 1000 - Date.now());
}
