import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { ObjectMatch } from '../matching/match-index.js';
import { budgetEnd } from './app-budget.js';
import type { AppTarget, StoredApp } from './app-model.js';
import { REFRESH_DECISIONS, refreshApp } from './app-refresh.js';
import { laterOwnership } from './app-superseded.js';
import type { AppLedger } from './ports/rollout-writer.js';
import type { AppOutcome, RefreshContext } from './work-model.js';

// One cluster's matched objects refreshed with bounded concurrency (each app in app-refresh.ts), the new
// records written in batches as their apps finish, and an outcome for every object.

/** Finished apps whose new records are written together (one BatchWriteItem). */
const FLUSH_EVERY = 25;

const appKey = (t: AppTarget) => `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

/**
 * Every matched object of one cluster, with bounded concurrency; each app's record is written as it ends.
 * `recordsRead`: how many records of the cluster the work item found (undefined when it read none).
 */
export async function refreshCluster(
  matches: readonly ObjectMatch[],
  context: RefreshContext,
): Promise<{ outcomes: AppOutcome[]; recordsRead?: number }> {
  const { deps, meta, cluster } = context;
  const needed = matches.some((m) => REFRESH_DECISIONS.has(m.decision));
  const existing = needed
    ? new Map(
        (context.records ?? (await deps.rollouts.listApps(meta.sha, cluster.name))).map((a) => [
          appKey(a),
          a,
        ]),
      )
    : new Map<string, StoredApp>();
  const ownedLater = laterOwnership(context);
  // New records go out in batches as their apps finish, not all at the end: a killed invocation loses at
  // most one batch, and its redelivery finds the others claimed or finished instead of patching them again.
  const finished: AppTarget[] = [];
  const settled = await mapWithConcurrency(matches, cluster.concurrency, async (m) => {
    const previous = existing.get(appKey(m.target));
    // An app with no record yet: only this work item (the lease holder) can create one.
    const ledger: AppLedger =
      previous === undefined && context.fresh !== undefined ? context.fresh : deps.rollouts;
    const outcome = await refreshApp(m, previous, { ...context, ledger, ownedLater });
    if (ledger === context.fresh) {
      finished.push(m.target);
      // And at once when the budget has ended: what was done is recorded before the invocation can die.
      if (finished.length >= FLUSH_EVERY || budgetEnd(context) !== undefined) {
        await context.fresh.flush(finished.splice(0));
      }
    }
    return outcome;
  });
  const outcomes = settled.map((s, i): AppOutcome => {
    if (s.status === 'fulfilled') return s.value;
    const target = (matches[i] as ObjectMatch).target;
    const detail = `could not record: ${errorMessage(s.reason)}`;
    context.log.error('app outcome not recorded', {
      app: target.name,
      namespace: target.namespace,
      error: detail,
    });
    return { target, decision: 'error', detail, retry: 'failed', track: false, patched: false };
  });
  return { outcomes, ...(needed ? { recordsRead: existing.size } : {}) };
}
