import { performance } from 'node:perf_hooks';
import { webhookHandler } from '../lib/handlers.js';
import { ms, type Row, stats } from './measure.js';
import { signedPush } from './signed-push.js';
import { startBenchWorld } from './world.js';

/** The webhook function's handler, in process, against dynalite: verify, record, enqueue, answer. */
export async function benchWebhook(): Promise<Row[]> {
  const world = await startBenchWorld();
  try {
    const handler = webhookHandler(async () => world.app);
    for (let i = 0; i < 50; i++) await handler(signedPush(i));
    const samples: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const event = signedPush(1000 + i);
      const start = performance.now();
      const result = await handler(event);
      samples.push(performance.now() - start);
      if (result.statusCode !== 202) throw new Error(`unexpected ${result.statusCode}`);
    }
    const concurrent = performance.now();
    await Promise.all(Array.from({ length: 500 }, (_, i) => handler(signedPush(5000 + i))));
    const perSecond = 500 / ((performance.now() - concurrent) / 1000);
    const s = stats(samples);
    return [
      {
        scenario: 'webhook',
        measure: 'signed push → 202, sequential, p50 / p95 / p99',
        value: `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`,
      },
      {
        scenario: 'webhook',
        measure: '500 concurrent deliveries',
        value: `${perSecond.toFixed(0)} per second`,
      },
    ];
  } finally {
    await world.close();
  }
}
