import { type FindingChanges, findingKey } from '../audit/lifecycle.js';
import type { Finding } from '../audit/types.js';

/**
 * The upserts worth writing. Created, reopened, resolved and changed findings always are; an open finding
 * seen again unchanged only once its stored `lastSeen` is `refreshMs` old, so a 5,000-app fleet seen every
 * few minutes writes its unchanged findings about once an hour, not every pass.
 */
export function findingsToWrite(
  changes: Pick<FindingChanges, 'upserts' | 'created' | 'resolved'>,
  previous: readonly Finding[],
  now: Date,
  refreshMs: number,
): Finding[] {
  const always = new Set([...changes.created, ...changes.resolved].map(findingKey));
  const before = new Map(previous.map((f) => [findingKey(f), f]));
  return changes.upserts.filter((next) => {
    const key = findingKey(next);
    const old = before.get(key);
    if (always.has(key) || old === undefined || changed(old, next)) return true;
    const lastSeen = Date.parse(old.lastSeen);
    return Number.isNaN(lastSeen) || now.getTime() - lastSeen >= refreshMs;
  });
}

function changed(old: Finding, next: Finding): boolean {
  return (
    old.severity !== next.severity ||
    old.message !== next.message ||
    old.firstSeen !== next.firstSeen ||
    (old.resolvedAt === undefined) !== (next.resolvedAt === undefined) ||
    JSON.stringify(old.evidence) !== JSON.stringify(next.evidence)
  );
}

/** Open findings after the writes: what the report counts. */
export function openAfter(changes: Pick<FindingChanges, 'upserts' | 'unchanged'>): number {
  return [...changes.upserts, ...changes.unchanged].filter((f) => f.resolvedAt === undefined).length;
}
