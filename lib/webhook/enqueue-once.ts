import { describeError } from '../http/response.js';
import type { DeliveryRecord, DeliveryStore, Logger } from '../ports.js';

export interface EnqueueOnceOptions {
  /** How long to wait for another caller holding the delivery's lease before enqueueing anyway. */
  readonly busyWaitMs?: number;
  readonly pollMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** `enqueued`: this call put the push on the queue; `duplicate`: it was there already. */
export type EnqueueOutcome = 'enqueued' | 'duplicate';

/**
 * At-least-once enqueue of one delivery: claim it (`received`), send, mark it `enqueued`. A delivery
 * recorded but never enqueued (a failed or hung send, a dead process) is enqueued by its redelivery; only
 * an `enqueued` one is a duplicate. A concurrent caller holding the lease is waited for briefly, then
 * enqueued over: downstream is idempotent, so a double enqueue is tolerable, a lost one is not.
 * Errors of the claim or the send propagate (the caller answers 503).
 */
export async function enqueueOnce(
  deliveries: DeliveryStore,
  record: DeliveryRecord,
  send: () => Promise<void>,
  logger: Logger,
  options: EnqueueOnceOptions = {},
): Promise<EnqueueOutcome> {
  const claim = await deliveries.claim(record);
  if (claim === 'enqueued') return 'duplicate';
  if (claim === 'busy' && (await enqueuedMeanwhile(deliveries, record, options))) return 'duplicate';
  try {
    await send();
  } catch (error) {
    await deliveries.release(record.provider, record.deliveryId).catch((releaseError: unknown) => {
      // The lease then ends on its own; the redelivery after it still enqueues.
      logger.warn('delivery release failed', { error: describeError(releaseError) });
    });
    throw error;
  }
  await deliveries.markEnqueued(record.provider, record.deliveryId).catch((markError: unknown) => {
    // The push is on the queue; a redelivery would enqueue it once more, which downstream tolerates.
    logger.warn('delivery not marked enqueued', { error: describeError(markError) });
  });
  return 'enqueued';
}

async function enqueuedMeanwhile(
  deliveries: DeliveryStore,
  record: DeliveryRecord,
  options: EnqueueOnceOptions,
): Promise<boolean> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pollMs = options.pollMs ?? 200;
  for (let waited = 0; waited < (options.busyWaitMs ?? 2_000); waited += pollMs) {
    await sleep(pollMs);
    if ((await deliveries.state(record.provider, record.deliveryId)) === 'enqueued') return true;
  }
  return false;
}
