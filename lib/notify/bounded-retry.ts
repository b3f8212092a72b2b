import type { SlackDeliveryError } from './slack-errors.js';

/** How long a Slack call may hold a Lambda: a few attempts and a cap on the time spent waiting. */
export interface RetryBudget {
  readonly maxAttempts: number;
  /** Longest total wait (Retry-After included) before giving up; a longer Retry-After gives up at once. */
  readonly maxWaitMs: number;
  /** Pause before retrying a 5xx or a network failure (times the attempt number). */
  readonly backoffMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY_BUDGET: RetryBudget = {
  maxAttempts: 2,
  maxWaitMs: 10_000,
  backoffMs: 500,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Used when a 429 carries no usable Retry-After. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Calls `call` until it succeeds, Slack rejects it, the attempts run out or the next wait would
 * exceed the budget; `classify` turns whatever the SDK threw into a safe SlackDeliveryError.
 */
export async function withBoundedRetry<T>(
  call: () => Promise<T>,
  classify: (error: unknown) => SlackDeliveryError,
  budget: RetryBudget,
): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (thrown) {
      const error = classify(thrown);
      if (error.failure === 'rejected' || attempt >= budget.maxAttempts) throw error;
      const wait =
        error.failure === 'rate-limited'
          ? (error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000
          : budget.backoffMs * attempt;
      if (waited + wait > budget.maxWaitMs) throw error;
      await budget.sleep(wait);
      waited += wait;
    }
  }
}
