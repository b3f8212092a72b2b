import type { ObjectMatch } from '../matching/match-index.js';
import { holdFor } from '../release/holds.js';
import type { AppTarget, StoredApp } from './app-model.js';
import { isTerminal } from './state-model.js';
import type { AppContext, AppOutcome } from './work-model.js';

/** Not yet refreshed: what release control's holds apply to (an app already on its way is left to go). */
const NOT_STARTED: ReadonlySet<string> = new Set(['matched', 'held']);

/**
 * Release control, before anything is claimed: an app a hold applies to is recorded `held` with the reason
 * (or ends `aborted`/`superseded`) instead of being refreshed; undefined when it may go.
 */
export async function applyHold(
  match: ObjectMatch,
  previous: StoredApp | undefined,
  base: AppTarget & { destination?: string; wave?: string },
  context: AppContext,
): Promise<AppOutcome | undefined> {
  const { holds, ledger, meta, deps } = context;
  if (holds === undefined) return undefined;
  if (previous !== undefined && !NOT_STARTED.has(previous.state) && !isTerminal(previous.state))
    return undefined;
  const verdict = holdFor(
    {
      repoKey: context.repoKey,
      cluster: base.cluster,
      destination: base.destination,
      wave: base.wave,
      ...(match.object.kind === 'Application' ? { raw: match.object.raw } : {}),
    },
    holds,
  );
  if (verdict.kind === 'go') return undefined;
  const { target } = match;
  const none = { track: false, patched: false } as const;
  const change =
    verdict.kind === 'held'
      ? { state: 'held' as const, decision: 'held' as const, message: verdict.reason }
      : {
          state: verdict.state,
          decision: verdict.state,
          message: verdict.reason,
          finishedAt: deps.clock.now().toISOString(),
        };
  const placed = {
    ...(base.destination === undefined ? {} : { destination: base.destination }),
    ...(base.wave === undefined ? {} : { wave: base.wave }),
  };
  if (previous === undefined) await ledger.recordApp(meta, { ...base, ...change });
  else if (previous.state !== change.state || previous.message !== change.message) {
    // A terminal app being reopened (a rollback to this commit) is held like a new one.
    await ledger.transition(meta.sha, target, { ...change, ...placed, claimedAt: null }, previous.version);
  }
  return { target, decision: change.decision, detail: verdict.reason, ...none };
}
