import type { DigestFilter } from '../fleet/fleet-config.js';
import type { FindingChanges } from './lifecycle.js';
import { type Finding, SEVERITIES, type Severity } from './types.js';

type DigestChanges = Pick<FindingChanges, 'created' | 'resolved'>;

/**
 * What the Slack digest shows under the fleet's `audit.digest` settings: findings at least as severe as
 * `minSeverity` (else `floor`, the deployment's `DIGEST_MIN_SEVERITY`) whose rule is not muted. Only the
 * digest is filtered; every finding is still stored and served by `GET /findings`.
 */
export function filterDigestChanges(
  changes: DigestChanges,
  filter: DigestFilter | undefined,
  floor?: Severity,
): DigestChanges {
  const minSeverity = filter?.minSeverity ?? floor;
  if (filter === undefined && minSeverity === undefined) return changes;
  const maxRank = minSeverity === undefined ? SEVERITIES.length : SEVERITIES.indexOf(minSeverity);
  const muted = new Set(filter?.mute ?? []);
  const shown = (f: Finding) => SEVERITIES.indexOf(f.severity) <= maxRank && !muted.has(f.rule);
  return { created: changes.created.filter(shown), resolved: changes.resolved.filter(shown) };
}
