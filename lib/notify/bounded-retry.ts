import { type RetrySchedule, sleepFor, withRetries } from '../http/retry-schedule.js';
import type { SlackDeliveryError } from './slack-errors.js';

/** How long a Slack call may hold a Lambda: the shared retry schedule (`lib/http/retry-schedule.ts`). */
export type RetryBudget = RetrySchedule;

export const DEFAULT_RETRY_BUDGET: RetryBudget = {
  maxAttempts: 2,
  maxWaitMs: 10_000,
  backoffMs: 500,
  jitter: 0.2,
  sleep: sleepFor,
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
  return withRetries(budget, async () => {
    try {
      return { done: await call() };
    } catch (thrown) {
      const error = classify(thrown);
      if (error.failure === 'rejected') throw error;
      const retryAfterMs =
        error.failure === 'rate-limited'
          ? (error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000
          : undefined;
      return {
        again: {
          retryAfterMs,
          giveUp: () => {
            throw error;
          },
        },
      };
    }
  });
}
