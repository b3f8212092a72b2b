import type { BatchEntry, Queue, SendOptions } from '../../lib/ports.js';

export interface FaultQueue<M> extends Queue<M> {
  /** The next `n` calls (send or sendBatch) reject with `error` (default: an SQS-like 503). */
  failNextSends(n: number, error?: Error): void;
  /**
   * The next send (or sendBatch) hangs as an SDK call without a timeout would. `release('deliver')` lets
   * it through to the queue, `release('fail')` rejects it; unreleased, it never settles.
   */
  hangNextSend(): { release(outcome: 'deliver' | 'fail'): void };
  /**
   * In the next `times` sendBatch calls (default 1), entries matching `match` are held back and the call
   * rejects naming them, as `sqsQueue` does once SQS has reported them `Failed` a few times.
   */
  failBatchEntries(match: (message: M) => boolean, times?: number): void;
  /** Every call seen: `send`/`sendBatch`, and whether the fault wrapper let it through. */
  readonly calls: { readonly kind: 'send' | 'sendBatch'; readonly outcome: 'sent' | 'failed' | 'hung' }[];
}

/**
 * A fault-injecting wrapper around any queue (the local stack's `wrapQueue` option puts it in front of
 * the in-process queues). Faults apply in the order injected; with none pending, calls pass straight on.
 */
export function faultQueue<M>(inner: Queue<M>): FaultQueue<M> {
  let failures: Error[] = [];
  let hang: { outcome: Promise<'deliver' | 'fail'>; armed: boolean } | undefined;
  let entryFault: { match: (message: M) => boolean; times: number } | undefined;
  const calls: { kind: 'send' | 'sendBatch'; outcome: 'sent' | 'failed' | 'hung' }[] = [];

  const guard = async (kind: 'send' | 'sendBatch', run: () => Promise<void>) => {
    const failure = failures.shift();
    if (failure !== undefined) {
      calls.push({ kind, outcome: 'failed' });
      throw failure;
    }
    if (hang?.armed === true) {
      const pending = hang;
      pending.armed = false;
      calls.push({ kind, outcome: 'hung' });
      if ((await pending.outcome) === 'fail') throw new Error('send released as failed after hanging');
      return run();
    }
    calls.push({ kind, outcome: 'sent' });
    return run();
  };

  return {
    calls,
    failNextSends(n, error) {
      failures = Array.from(
        { length: n },
        () => error ?? Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' }),
      );
    },
    hangNextSend() {
      let release: (outcome: 'deliver' | 'fail') => void = () => undefined;
      const outcome = new Promise<'deliver' | 'fail'>((resolve) => {
        release = resolve;
      });
      hang = { outcome, armed: true };
      return { release: (o) => release(o) };
    },
    failBatchEntries(match, times = 1) {
      entryFault = { match, times };
    },
    send: (message: M, options?: SendOptions) => guard('send', () => inner.send(message, options)),
    sendBatch: (entries: readonly BatchEntry<M>[]) =>
      guard('sendBatch', async () => {
        if (entryFault === undefined || entryFault.times <= 0) return inner.sendBatch(entries);
        const fault = entryFault;
        fault.times -= 1;
        const failed = entries.flatMap((e, i) => (fault.match(e.message) ? [i] : []));
        const passed = entries.filter((e) => !fault.match(e.message));
        if (passed.length > 0) await inner.sendBatch(passed);
        if (failed.length > 0) {
          throw new Error(`sqs refused ${failed.map((i) => `entry ${i} (InternalError)`).join(', ')}`);
        }
      }),
  };
}
