import { type Observation, observations } from '../history.js';
import { type AuditRule, capped, draft } from '../rule.js';
import type { JsonValue } from '../types.js';

export const selfHealThrashRule: AuditRule = {
  id: 'selfheal-thrash',
  severity: 'medium',
  title: 'Repeated OutOfSync→Synced flips at one revision',
  docs: 'Something keeps changing the live objects (an HPA, an operator, a mutating webhook): let it own those fields with ignoreDifferences (and RespectIgnoreDifferences=true) or stop it.',
  needs: ['history'],
  check(context) {
    const { input, options, app } = context;
    const from = input.now.getTime() - options.thrashWindowMs;
    const byRevision = new Map<string, number[]>();
    for (const [revision, entries] of groupByRevision(observations(input.history))) {
      const flips: number[] = [];
      for (let i = 1; i < entries.length; i++) {
        const previous = entries[i - 1];
        const current = entries[i];
        if (previous === undefined || current === undefined) continue;
        if (previous.syncStatus === 'OutOfSync' && current.syncStatus === 'Synced' && current.at >= from) {
          flips.push(current.at);
        }
      }
      byRevision.set(revision, flips);
    }
    let worst: { revision: string; flips: number[] } | undefined;
    for (const [revision, flips] of byRevision) {
      if (flips.length >= options.thrashFlips && (worst === undefined || flips.length > worst.flips.length)) {
        worst = { revision, flips };
      }
    }
    if (worst === undefined) return [];
    const minutes = Math.round(options.thrashWindowMs / 60_000);
    const times = capped(
      worst.flips.map((t) => new Date(t).toISOString()),
      options.maxEvidenceItems,
    );
    const evidence: Record<string, JsonValue> = {
      revision: worst.revision,
      flips: worst.flips.length,
      windowMinutes: minutes,
      flippedAt: times.items,
      selfHeal: app.automated?.selfHeal ?? false,
    };
    return [
      draft(selfHealThrashRule, context, {
        message: `${worst.flips.length} OutOfSync→Synced flips in ${minutes} min at revision ${worst.revision.slice(0, 12)}`,
        evidence,
      }),
    ];
  },
};

/** Synced/OutOfSync observations per revision, in time order; those without a revision are left out. */
function groupByRevision(history: readonly Observation[]): Map<string, Observation[]> {
  const groups = new Map<string, Observation[]>();
  for (const entry of history) {
    if (entry.revision === undefined) continue;
    if (entry.syncStatus !== 'Synced' && entry.syncStatus !== 'OutOfSync') continue;
    groups.set(entry.revision, [...(groups.get(entry.revision) ?? []), entry]);
  }
  return groups;
}
