import { describe, expect, it } from 'vitest';
import { type RetryBudget, withBoundedRetry } from '../../../lib/notify/bounded-retry.js';
import { SlackDeliveryError as Failure, type SlackDeliveryError } from '../../../lib/notify/slack-errors.js';
import { recordingSleep } from '../../helpers/slack.js';

function budget(overrides: Partial<RetryBudget> = {}) {
  const sleep = recordingSleep();
  return {
    sleep,
    budget: { maxAttempts: 2, maxWaitMs: 10_000, backoffMs: 500, sleep: sleep.sleep, ...overrides },
  };
}

/** A call that fails with the given errors in turn, then answers `done`. */
function failingWith(errors: SlackDeliveryError[]) {
  let calls = 0;
  return {
    calls: () => calls,
    call: async () => {
      const error = errors[calls];
      calls += 1;
      if (error !== undefined) throw error;
      return 'done';
    },
  };
}

const asIs = (error: unknown) => error as SlackDeliveryError;

describe('withBoundedRetry', () => {
  it('waits what Retry-After asks, then tries again', async () => {
    const { sleep, budget: b } = budget();
    const call = failingWith([new Failure('op', 'rate-limited', { retryAfterSeconds: 3 })]);
    await expect(withBoundedRetry(call.call, asIs, b)).resolves.toBe('done');
    expect(sleep.waits).toEqual([3000]);
  });

  it('gives up at once when Retry-After is longer than the budget', async () => {
    const { sleep, budget: b } = budget();
    const call = failingWith([new Failure('op', 'rate-limited', { retryAfterSeconds: 30 })]);
    await expect(withBoundedRetry(call.call, asIs, b)).rejects.toMatchObject({ failure: 'rate-limited' });
    expect(sleep.waits).toEqual([]);
    expect(call.calls()).toBe(1);
  });

  it('backs off before retrying a 5xx, and stops after the last attempt', async () => {
    const { sleep, budget: b } = budget();
    const unavailable = () => new Failure('op', 'unavailable', { status: 503 });
    const call = failingWith([unavailable(), unavailable(), unavailable()]);
    await expect(withBoundedRetry(call.call, asIs, b)).rejects.toMatchObject({ failure: 'unavailable' });
    expect(call.calls()).toBe(2);
    expect(sleep.waits).toEqual([500]);
  });

  it('does not retry what Slack rejected', async () => {
    const { sleep, budget: b } = budget();
    const call = failingWith([new Failure('op', 'rejected', { slackError: 'invalid_auth' })]);
    await expect(withBoundedRetry(call.call, asIs, b)).rejects.toMatchObject({ slackError: 'invalid_auth' });
    expect(call.calls()).toBe(1);
    expect(sleep.waits).toEqual([]);
  });

  it('waits one second for a 429 without a usable Retry-After', async () => {
    const { sleep, budget: b } = budget();
    const call = failingWith([new Failure('op', 'rate-limited')]);
    await withBoundedRetry(call.call, asIs, b);
    expect(sleep.waits).toEqual([1000]);
  });
});
