import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../lib/errors.js';
import { KubernetesApiError } from '../../../lib/kubernetes/kube-error.js';
import { withRetry } from '../../../lib/kubernetes/retry.js';

const retryable = (status = 500) =>
  new UpstreamError(`upstream ${status}`, { retryable: true, upstreamStatus: status });
const final = (status = 403) =>
  new UpstreamError(`upstream ${status}`, { retryable: false, upstreamStatus: status });

function harness(failures: unknown[], random = () => 0.5) {
  const sleeps: number[] = [];
  let calls = 0;
  const run = () =>
    withRetry(
      async (attempt) => {
        calls++;
        const failure = failures[attempt - 1];
        if (failure !== undefined) throw failure;
        return `ok after ${attempt}`;
      },
      { attempts: 4, baseMs: 100, maxMs: 300, random, sleep: async (ms) => void sleeps.push(ms) },
    );
  return { run, sleeps, calls: () => calls };
}

describe('withRetry', () => {
  it('returns at once when the first call succeeds', async () => {
    const h = harness([]);
    await expect(h.run()).resolves.toBe('ok after 1');
    expect(h.sleeps).toEqual([]);
  });

  it('retries retryable failures with exponential ceilings and full jitter', async () => {
    const h = harness([retryable(), retryable(503), retryable(409)]);
    await expect(h.run()).resolves.toBe('ok after 4');
    // random 0.5 × min(300, 100·2ⁿ⁻¹): 50, 100, 150 (capped at 300 → 150).
    expect(h.sleeps).toEqual([50, 100, 150]);
  });

  it('draws each delay below its ceiling', async () => {
    const h = harness([retryable(), retryable()], () => 0.999);
    await h.run();
    expect(h.sleeps).toEqual([99, 199]);
  });

  it.each([
    ['a 403 is thrown at once', final(403)],
    ['a 404 is thrown at once', final(404)],
    ['a plain Error is thrown at once', new Error('bug')],
  ])('%s', async (_name, error) => {
    const h = harness([error]);
    await expect(h.run()).rejects.toBe(error);
    expect(h.calls()).toBe(1);
  });

  it('gives up after the bounded number of attempts with the last error', async () => {
    const last = retryable(502);
    const h = harness([retryable(), retryable(), retryable(), last]);
    await expect(h.run()).rejects.toBe(last);
    expect(h.calls()).toBe(4);
  });

  it("waits as long as a 429's Retry-After asks", async () => {
    const throttled = new KubernetesApiError('slow down', {
      cluster: 'c',
      retryable: true,
      upstreamStatus: 429,
      retryAfterMs: 2000,
    });
    const h = harness([throttled]);
    await expect(h.run()).resolves.toBe('ok after 2');
    expect(h.sleeps).toEqual([2000]);
  });

  it('stops instead of blocking when Retry-After is longer than allowed', async () => {
    const throttled = new KubernetesApiError('slow down', {
      cluster: 'c',
      retryable: true,
      upstreamStatus: 429,
      retryAfterMs: 120_000,
    });
    const h = harness([throttled]);
    await expect(h.run()).rejects.toBe(throttled);
  });
});
