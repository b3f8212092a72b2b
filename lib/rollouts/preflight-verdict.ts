import type { SecretCheck } from '../secrets/secret-check.js';
import { filePosition } from '../secrets/unparseable.js';
import type { PreflightNote } from './app-model.js';
import type { PreflightVerdict } from './work-model.js';

const BLOCKING: ReadonlySet<string> = new Set([
  'missing-secret',
  'missing-property',
  'not-json',
  'unparseable',
]);
const MAX_REASONS = 5;

/** One check as on-call reads it: the ExternalSecret, key and property (never a value), or the file and line. */
function describeCheck(c: SecretCheck): string {
  if (c.outcome === 'unparseable') {
    const where = c.file === undefined ? 'a manifest' : filePosition(c.file, c.line, c.column);
    return `${where}: unparseable`;
  }
  const where = [
    c.key === undefined ? undefined : `key ${c.key}`,
    c.property === undefined ? undefined : `property ${c.property}`,
  ]
    .filter((x) => x !== undefined)
    .join(' ');
  return `ExternalSecret ${c.externalSecret}${where === '' ? '' : ` ${where}`}: ${c.outcome}`;
}

/** The block's reason as on-call reads it: the ExternalSecret, key and property, never a value. */
export function describeBlock(verdict: PreflightVerdict): string {
  const blocking = verdict.checks.filter((c) => c.blocking !== false && BLOCKING.has(c.outcome));
  if (blocking.length === 0) return verdict.summary ?? 'an ExternalSecret reference does not resolve';
  const named = blocking.slice(0, 3).map(describeCheck);
  return `${named.join('; ')}${blocking.length > 3 ? ` (and ${blocking.length - 3} more)` : ''}`;
}

/**
 * Why a warn is a warn, one line per check that is not `ok` (a Helm chart not rendered, a file that does not
 * parse, a reference that does not resolve under policy `warn`), at most five and a count of the rest.
 */
export function warnReasons(checks: readonly SecretCheck[]): string[] {
  const warned = checks.filter((c) => c.outcome !== 'ok' || c.esoGap !== undefined);
  const reasons = warned.slice(0, MAX_REASONS).map((c) => {
    if (c.outcome === 'unparseable' || c.outcome === 'not-rendered') return c.message ?? describeCheck(c);
    if (c.outcome === 'ok')
      return `ExternalSecret ${c.externalSecret}: ${c.esoGap ?? 'ok'} (ESO reports it synced)`;
    return describeCheck(c);
  });
  if (warned.length > MAX_REASONS) reasons.push(`and ${warned.length - MAX_REASONS} more`);
  return reasons;
}

/** The preflight's verdict as the app record carries it: `block` with its reason, `warn` with its reasons. */
export function preflightNote(verdict: PreflightVerdict): PreflightNote {
  if (verdict.verdict === 'block') return { verdict: 'block', reasons: [describeBlock(verdict)] };
  if (verdict.verdict === 'pass') return { verdict: 'pass', reasons: [] };
  const reasons = warnReasons(verdict.checks);
  return {
    verdict: 'warn',
    reasons: reasons.length > 0 ? reasons : [verdict.summary ?? 'the preflight warned'],
  };
}
