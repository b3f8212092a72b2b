import { UpstreamError } from '../errors.js';

export interface RetryOptions {
  /** Total tries, the first included (default 3). */
  readonly attempts?: number;
  /** The first backoff ceiling in ms (default 200); it doubles per retry. */
  readonly baseMs?: number;
  /** The backoff ceiling never grows past this (default 5000). */
  readonly maxMs?: number;
  /** A server's `Retry-After` longer than this ends the retries instead of blocking (default 30000). */
  readonly maxRetryAfterMs?: number;
  /** [0, 1): full jitter draws the delay uniformly below the ceiling (default Math.random). */
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Default: an `UpstreamError` marked retryable. */
  readonly isRetryable?: (error: unknown) => boolean;
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `fn` until it succeeds, a non-retryable error is thrown or the attempts are used up, waiting
 * between tries with exponential backoff and full jitter (AWS architecture blog's "full jitter"): the
 * delay before retry n is uniform in [0, min(maxMs, baseMs·2ⁿ⁻¹)). A 429 with `Retry-After` waits that long.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 3);
  const baseMs = options.baseMs ?? 200;
  const maxMs = options.maxMs ?? 5000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  const isRetryable = options.isRetryable ?? defaultIsRetryable;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
      const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
      let delayMs = Math.floor(random() * ceiling);
      const asked = retryAfterMs(error);
      if (asked !== undefined) {
        if (asked > maxRetryAfterMs) throw error;
        delayMs = Math.max(delayMs, asked);
      }
      options.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs);
    }
  }
}

function defaultIsRetryable(error: unknown): boolean {
  return error instanceof UpstreamError && error.retryable;
}

/** Only a 429 (throttling) makes us wait as long as the server asked. */
function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof UpstreamError) || error.upstreamStatus !== 429) return undefined;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
