import type { PreflightVerdict } from './work-model.js';

const BLOCKING: ReadonlySet<string> = new Set(['missing-secret', 'missing-property', 'not-json']);

/** The block's reason as on-call reads it: the ExternalSecret, key and property, never a value. */
export function describeBlock(verdict: PreflightVerdict): string {
  const blocking = verdict.checks.filter((c) => c.blocking !== false && BLOCKING.has(c.outcome));
  if (blocking.length === 0) return verdict.summary ?? 'an ExternalSecret reference does not resolve';
  const named = blocking.slice(0, 3).map((c) => {
    const where = [
      c.key === undefined ? undefined : `key ${c.key}`,
      c.property === undefined ? undefined : `property ${c.property}`,
    ]
      .filter((x) => x !== undefined)
      .join(' ');
    return `ExternalSecret ${c.externalSecret}${where === '' ? '' : ` ${where}`}: ${c.outcome}`;
  });
  return `${named.join('; ')}${blocking.length > 3 ? ` (and ${blocking.length - 3} more)` : ''}`;
}
