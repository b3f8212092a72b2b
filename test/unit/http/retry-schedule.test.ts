import { describe, expect, it } from 'vitest';
import {
  type AttemptOutcome,
  backoff,
  type RetrySchedule,
  retryAfterMs,
  withRetries,
} from '../../../lib/http/retry-schedule.js';

function schedule(overrides: Partial<RetrySchedule> = {}) {
  const waits: number[] = [];
  const plan: RetrySchedule = {
    maxAttempts: 3,
    maxWaitMs: 10_000,
    backoffMs: 100,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...overrides,
  };
  return { plan, waits };
}

/** Attempts that fail retryably (after the given Retry-After, or none) until `okAt`, then succeed. */
function attempts(okAt: number, retryAfter: (n: number) => number | undefined = () => undefined) {
  const seen: number[] = [];
  const released: number[] = [];
  const attempt = async (n: number): Promise<AttemptOutcome<string>> => {
    seen.push(n);
    if (n >= okAt) return { done: `ok at ${n}` };
    return {
      again: {
        retryAfterMs: retryAfter(n),
        giveUp: () => `gave up at ${n}`,
        release: async () => {
          released.push(n);
        },
      },
    };
  };
  return { attempt, seen, released };
}

describe('the retry schedule every outbound call shares', () => {
  it('retries with linear backoff until an attempt is done, releasing each answer let go', async () => {
    const { plan, waits } = schedule();
    const run = attempts(3);
    await expect(withRetries(plan, run.attempt)).resolves.toBe('ok at 3');
    expect(run.seen).toEqual([1, 2, 3]);
    expect(waits).toEqual([100, 200]);
    expect(run.released).toEqual([1, 2]);
  });

  it('gives up with the last outcome once the attempts run out, without a last wait', async () => {
    const { plan, waits } = schedule({ maxAttempts: 2 });
    const run = attempts(99);
    await expect(withRetries(plan, run.attempt)).resolves.toBe('gave up at 2');
    expect(waits).toEqual([100]);
    expect(run.released).toEqual([1]);
  });

  it('honours Retry-After as given, and gives up at once when it would pass the overall wait budget', async () => {
    const honoured = schedule({ jitter: 1, random: () => 1 });
    const run = attempts(2, () => 1_500);
    await expect(withRetries(honoured.plan, run.attempt)).resolves.toBe('ok at 2');
    expect(honoured.waits).toEqual([1_500]);

    const capped = schedule({ maxWaitMs: 2_000 });
    const long = attempts(99, (n) => (n === 1 ? 1_500 : 600));
    await expect(withRetries(capped.plan, long.attempt)).resolves.toBe('gave up at 2');
    expect(capped.waits).toEqual([1_500]);
  });

  it('lets a failure thrown by the attempt through at once (not retryable)', async () => {
    const { plan, waits } = schedule();
    await expect(
      withRetries(plan, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(waits).toEqual([]);
  });

  it('jitters the backoff downwards only, within the fraction asked for', () => {
    const base = { maxAttempts: 3, maxWaitMs: 0, backoffMs: 1_000, sleep: async () => {} };
    expect(backoff(base, 2)).toBe(2_000);
    expect(backoff({ ...base, jitter: 0.2, random: () => 0 }, 2)).toBe(2_000);
    expect(backoff({ ...base, jitter: 0.2, random: () => 1 }, 2)).toBe(1_600);
    expect(backoff({ ...base, jitter: 0.2, random: () => 0.5 }, 1)).toBe(900);
    // Out of range fractions are clamped: never a negative or a longer pause.
    expect(backoff({ ...base, jitter: 5, random: () => 1 }, 1)).toBe(0);
    expect(backoff({ ...base, jitter: -1, random: () => 1 }, 1)).toBe(1_000);
    for (let i = 0; i < 200; i++) {
      const wait = backoff({ ...base, jitter: 0.2 }, 3);
      expect(wait).toBeGreaterThanOrEqual(2_400);
      expect(wait).toBeLessThanOrEqual(3_000);
    }
  });

  it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
