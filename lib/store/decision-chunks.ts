import type { DecisionRecord } from '../rollouts/app-model.js';
import { decisionsSk, rolloutPk } from './keys.js';

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
    decisions: part,
    expiresAt,
  }));
}
