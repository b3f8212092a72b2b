import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { DecisionRecord } from '../rollouts/app-model.js';
import { decisionsSk, rolloutPk } from './keys.js';

// A work item's decisions (why each object whose repository matched was or was not refreshed), stored in
// chunks under the rollout: each chunk's JSON capped in bytes, then compressed, since DynamoDB bills a write
// per KB of the item and a cluster's decisions are mostly the same words (400 reasons: 90 KB of JSON, 1.4 KB
// compressed; the cost bench had them at a quarter of a 20,000-app push's write units).

/** Target size of one decisions item, well under DynamoDB's 400 KB (JSON overstates its item size). */
export const DECISIONS_ITEM_BYTES = 300_000;
export const DETAIL_MAX_CHARS = 1_000;
const CUT_MARK = ' …[cut]';

/** A decision whose `detail` is at most `DETAIL_MAX_CHARS` characters, marked when it was cut. */
export function capDetail(decision: DecisionRecord): DecisionRecord {
  const { detail } = decision;
  if (detail === undefined || detail.length <= DETAIL_MAX_CHARS) return decision;
  return { ...decision, detail: `${detail.slice(0, DETAIL_MAX_CHARS - CUT_MARK.length)}${CUT_MARK}` };
}

/**
 * Splits decisions into chunks whose JSON is at most `maxBytes` bytes (UTF-8), in order, measured rather
 * than counted: 2,000 decisions with long names and details once made a 400 KB item.
 */
export function chunkDecisions(
  decisions: readonly DecisionRecord[],
  maxBytes: number = DECISIONS_ITEM_BYTES,
): DecisionRecord[][] {
  const chunks: DecisionRecord[][] = [];
  let current: DecisionRecord[] = [];
  let bytes = 2; // the list's brackets
  for (const raw of decisions) {
    const decision = capDetail(raw);
    const size = Buffer.byteLength(JSON.stringify(decision), 'utf8') + 1; // and its comma
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(current);
      current = [];
      bytes = 2;
    }
    current.push(decision);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** The items of one work item's decisions under `batch` (a redelivery's overwrite these, never appends). */
export function decisionItems(
  sha: string,
  batch: string,
  decisions: readonly DecisionRecord[],
  expiresAt: number,
): Record<string, unknown>[] {
  return chunkDecisions(decisions).map((part, chunk) => ({
    pk: rolloutPk(sha),
    sk: decisionsSk(batch, chunk),
    type: 'decisions',
    // Brotli at quality 4: within a few percent of its best size here, at a fifth of the CPU of quality 11.
    decisionsBr: brotliCompressSync(JSON.stringify(part), {
      params: { [constants.BROTLI_PARAM_QUALITY]: 4 },
    }),
    decisionCount: part.length,
    expiresAt,
  }));
}

/** The decisions of one stored chunk: compressed (`decisionsBr`), or a plain list (items written before). */
export function chunkDecisionsOf(chunk: Record<string, unknown>): DecisionRecord[] {
  const packed = chunk.decisionsBr;
  if (packed instanceof Uint8Array) {
    return JSON.parse(brotliDecompressSync(packed).toString('utf8')) as DecisionRecord[];
  }
  return Array.isArray(chunk.decisions) ? (chunk.decisions as DecisionRecord[]) : [];
}
