import { BadRequestError } from '../errors.js';
import type { BatchEntry, PayloadStore, Queue, SendOptions } from '../ports.js';
import type { PointerMessage } from './messages.js';

/** A margin under SQS's 256 KiB: a message whose JSON is larger goes to the payload store. */
export const OFFLOAD_ABOVE_BYTES = 200 * 1024;
const MAX_DELAY_SECONDS = 900;

export interface OffloadOptions {
  readonly maxBytes?: number;
}

/**
 * Wraps any queue (SQS or the in-process one) so that no caller has to think about SQS's limits: a
 * message over `maxBytes` is stored in `payloads` and replaced by a `pointer` message that
 * `resolveQueueBody` turns back into the original on the consumer side; a delay is rounded and clamped
 * to the 0-900 s SQS accepts.
 */
export function offloadQueue<M extends { readonly type: string }>(
  inner: Queue<M | PointerMessage>,
  payloads: PayloadStore,
  options: OffloadOptions = {},
): Queue<M> {
  const maxBytes = options.maxBytes ?? OFFLOAD_ABOVE_BYTES;
  const toQueued = async (message: M): Promise<M | PointerMessage> => {
    const body = JSON.stringify(message);
    if (Buffer.byteLength(body, 'utf8') <= maxBytes) return message;
    return { type: 'pointer', payload: await payloads.put(body), for: message.type };
  };
  return {
    async send(message: M, sendOptions: SendOptions = {}) {
      const { delaySeconds, ...rest } = sendOptions;
      await inner.send(await toQueued(message), {
        ...rest,
        ...(delaySeconds === undefined ? {} : { delaySeconds: clampDelay(delaySeconds) }),
      });
    },
    async sendBatch(entries: readonly BatchEntry<M>[]) {
      const fitted = await Promise.all(
        entries.map(async (e) => ({
          message: await toQueued(e.message),
          ...(e.delaySeconds === undefined ? {} : { delaySeconds: clampDelay(e.delaySeconds) }),
        })),
      );
      await inner.sendBatch(fitted);
    },
  };
}

/** The consumer side: a pointer message's original body, any other body unchanged. */
export async function resolveQueueBody(body: string, payloads: PayloadStore): Promise<string> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return body;
  }
  const pointer = message as Partial<PointerMessage> | null;
  if (pointer?.type !== 'pointer') return body;
  if (typeof pointer.payload !== 'string') throw new BadRequestError('pointer message names no payload');
  return payloads.get(pointer.payload);
}

function clampDelay(seconds: number): number {
  return Number.isFinite(seconds) ? Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(seconds))) : 0;
}
