import { createHash } from 'node:crypto';
import type { AppTarget, SecretChecksSummary } from '../rollouts/app-model.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import { rolloutPk } from './keys.js';

/**
 * An app item keeps its ExternalSecret checks inline up to this many bytes of JSON; past it the item
 * carries a summary and the first problem checks, and the full list lives in chunk items beside it.
 * Small enough that the rest of the item (messages, failures, render note) stays far under 400 KB.
 */
export const SECRETS_INLINE_BYTES = 200_000;
/** Problem checks kept on the app item when the list is summarised. */
export const SECRETS_SHOWN = 20;
/** Target size of one chunk item of the full list, well under DynamoDB's 400 KB. */
export const SECRETS_CHUNK_BYTES = 300_000;

type Item = Record<string, unknown>;

/** What an app item says about checks too many to hold, and the items that hold them all. */
export interface BoundedChecks {
  /** The fields for the app item: `secrets` (all, or the first problems) and `secretsSummary` (or null). */
  readonly fields: {
    readonly secrets: readonly SecretCheck[];
    readonly secretsSummary: SecretChecksSummary | null;
  };
  /** Chunk items to put before the app item (none when the list fits inline). */
  readonly chunks: readonly Item[];
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The sort-key prefix of one list's chunks (the list's hash in it, so a later list never mixes in). */
export function secretChunkPrefix(target: AppTarget, listId: string): string {
  return `SECRETS#${target.cluster}#${target.kind}#${target.namespace}#${target.name}#${listId}#`;
}

/**
 * The checks as an app item may hold them: inline when their JSON is at most `inlineBytes`, else counted
 * per outcome with the first `SECRETS_SHOWN` problem checks inline and the whole list in chunk items of at
 * most `SECRETS_CHUNK_BYTES` (keyed by the list's hash: a retried write rewrites the same items).
 */
export function boundChecks(
  sha: string,
  target: AppTarget,
  checks: readonly SecretCheck[],
  extra: { readonly expiresAt?: number; readonly inlineBytes?: number } = {},
): BoundedChecks {
  if (bytesOf(checks) <= (extra.inlineBytes ?? SECRETS_INLINE_BYTES)) {
    return { fields: { secrets: checks, secretsSummary: null }, chunks: [] };
  }
  const outcomes: Record<string, number> = {};
  for (const c of checks) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1;
  const problems = checks.filter((c) => c.outcome !== 'ok' || c.esoGap !== undefined || c.blocking === true);
  const shown = problems.slice(0, SECRETS_SHOWN);
  const parts = chunkChecks(checks);
  const listId = createHash('sha256').update(JSON.stringify(checks)).digest('hex').slice(0, 16);
  const prefix = secretChunkPrefix(target, listId);
  const chunks = parts.map((part, i) => ({
    pk: rolloutPk(sha),
    sk: `${prefix}${String(i).padStart(4, '0')}`,
    type: 'secret-checks',
    checks: part,
    ...(extra.expiresAt === undefined ? {} : { expiresAt: extra.expiresAt }),
  }));
  const summary: SecretChecksSummary = {
    total: checks.length,
    outcomes,
    problems: problems.length,
    shown: shown.length,
    listId,
    chunks: chunks.length,
  };
  return { fields: { secrets: shown, secretsSummary: summary }, chunks };
}

function chunkChecks(checks: readonly SecretCheck[]): SecretCheck[][] {
  const out: SecretCheck[][] = [];
  let current: SecretCheck[] = [];
  let bytes = 2;
  for (const check of checks) {
    const size = bytesOf(check) + 1;
    if (current.length > 0 && bytes + size > SECRETS_CHUNK_BYTES) {
      out.push(current);
      current = [];
      bytes = 2;
    }
    current.push(check);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** The full list from its chunk items (in key order), or undefined when one of them is missing. */
export function checksFromChunks(
  summary: SecretChecksSummary,
  items: readonly Item[],
): readonly SecretCheck[] | undefined {
  if (items.length !== summary.chunks) return undefined;
  const sorted = [...items].sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  return sorted.flatMap((i) => (i.checks ?? []) as SecretCheck[]);
}
