/** At most `limit` calls of the returned function's tasks run at once; the rest wait in order. */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  const max = Math.max(1, Math.floor(limit) || 1);
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      // A finished task hands its slot straight to the next one waiting, so none can jump the queue.
      const next = waiting.shift();
      if (next === undefined) running--;
      else next();
    }
  };
}
