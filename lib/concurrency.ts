/**
 * Runs `fn` over `items` with at most `limit` calls in flight and returns every outcome in input order,
 * `Promise.allSettled`-style: one failure never hides (or stops) the others.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await fn(items[index] as T, index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/**
 * Every promise's value, once all have settled; the first failure (in order) once all have settled, so
 * nothing is still writing when the caller fails, and no second failure goes unhandled.
 */
export async function allSettledOrThrow<T extends readonly unknown[]>(
  promises: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/** The time budget ran out while a call was in flight; the call is abandoned (it may still complete). */
export class DeadlineError extends Error {
  constructor(what: string) {
    super(`${what}: out of time (the invocation's budget ended first)`);
    this.name = 'DeadlineError';
  }
}

/** Waits for `promise` until `deadlineMs` (epoch ms) at the latest. */
export async function withDeadline<T>(promise: Promise<T>, deadlineMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what)), Math.max(0, deadlineMs - Date.now()));
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
    promise.catch(() => undefined);
  }
}

/** Runs `fn` once fewer than `limit` calls started through the same limiter are in flight. */
export type Limiter = <R>(fn: () => Promise<R>) => Promise<R>;

/** A limiter shared by callers that run at once (clusters read in parallel, auditing into one budget). */
export function createLimiter(limit: number): Limiter {
  const max = Math.max(1, Math.floor(limit) || 1);
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await fn();
    } finally {
      const wake = waiting.shift();
      if (wake === undefined) active--;
      else wake();
    }
  };
}
