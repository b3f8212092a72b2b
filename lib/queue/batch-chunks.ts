/** SQS's per-message and per-batch size limit (256 KiB) and per-batch entry limit. */
export const SQS_MAX_BYTES = 262_144;
export const SQS_MAX_BATCH_ENTRIES = 10;

/**
 * Splits bodies into SendMessageBatch calls: at most 10 entries and 256 KiB of bodies per call, in order.
 * A body alone over the limit gets a chunk of its own (SQS then refuses it, naming the entry).
 */
export function batchChunks<T extends { readonly body: string }>(entries: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.body, 'utf8');
    if (current.length > 0 && (current.length >= SQS_MAX_BATCH_ENTRIES || bytes + size > SQS_MAX_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
