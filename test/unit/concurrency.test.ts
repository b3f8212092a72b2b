import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../lib/concurrency.js';

describe('mapWithConcurrency', () => {
  it('keeps results in input order whatever order the calls finish in', async () => {
    const results = await mapWithConcurrency([30, 10, 20], 3, async (ms) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return ms * 2;
    });
    expect(results).toEqual([
      { status: 'fulfilled', value: 60 },
      { status: 'fulfilled', value: 20 },
      { status: 'fulfilled', value: 40 },
    ]);
  });

  it('never has more than the limit in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    await mapWithConcurrency(
      Array.from({ length: 20 }, (_, i) => i),
      4,
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await Promise.resolve();
        await Promise.resolve();
        inFlight--;
      },
    );
    expect(peak).toBe(4);
  });

  it('reports a failure in its slot and still runs every other item', async () => {
    const seen: number[] = [];
    const results = await mapWithConcurrency([1, 2, 3, 4], 2, async (n) => {
      seen.push(n);
      if (n === 2) throw new Error('two failed');
      if (n === 3) throw new Error('three failed synchronously-ish');
      return n;
    });
    expect(seen.sort()).toEqual([1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('two failed'));
  });

  it('returns an empty list for no items', async () => {
    expect(await mapWithConcurrency([], 5, async () => 1)).toEqual([]);
  });
});
