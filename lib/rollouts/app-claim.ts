import { DeadlineError } from '../concurrency.js';
import { errorMessage, UpstreamError } from '../errors.js';
import type { ObjectMatch } from '../matching/match-index.js';
import { OUT_OF_TIME, ROLLOUT_DEADLINE_PASSED } from './app-budget.js';
import type { AppTarget } from './app-model.js';
import type { AppChange } from './ports/app-state.js';
import { STATE_RANK } from './state-model.js';
import type { AppContext, AppOutcome } from './work-model.js';

// What happens to an app fan-out has claimed: its change recorded over track's, a failed PATCH, a budget
// that ended before the PATCH.

const appKey = (t: AppTarget) => `${t.cluster}/${t.kind}/${t.namespace}/${t.name}`;

/**
 * A change to the app fan-out claimed. Track may have written it since (the app moved on by itself): then
 * the change is made again on what is there now, as long as the claim is still this one.
 */
export async function afterClaim(
  context: AppContext,
  target: AppTarget,
  change: AppChange,
  version: number,
  claimedAt: string,
): Promise<void> {
  const { deps, meta, ledger } = context;
  if ((await ledger.transition(meta.sha, target, change, version)) === 'updated') return;
  const now = (await deps.rollouts.listApps(meta.sha, target.cluster)).find(
    (a) => appKey(a) === appKey(target),
  );
  if (now === undefined || now.claimedAt !== claimedAt) return;
  const { state, ...rest } = change;
  // Never move it back: a state track already advanced past stays.
  const keep = state !== undefined && STATE_RANK[state] < STATE_RANK[now.state];
  await deps.rollouts.transition(meta.sha, target, keep ? rest : change, now.version);
}

export async function patchFailed(
  match: ObjectMatch,
  error: unknown,
  claim: { version: number; claimedAt: string },
  fresh: boolean,
  context: AppContext,
): Promise<AppOutcome> {
  const { deps, message } = context;
  const { target } = match;
  const detail = `refresh failed: ${errorMessage(error)}`;
  const retryable = error instanceof DeadlineError || !(error instanceof UpstreamError) || error.retryable;
  const last = message.attempt + 1 >= (deps.maxAttempts ?? 5);
  context.log.warn('refresh failed', {
    app: target.name,
    namespace: target.namespace,
    error: detail,
    retryable,
  });
  if (!retryable || last) {
    await afterClaim(
      context,
      target,
      {
        state: 'error',
        decision: 'error',
        message: last && retryable ? `${detail} (gave up after ${message.attempt + 1} attempts)` : detail,
        finishedAt: deps.clock.now().toISOString(),
        claimedAt: null,
      },
      claim.version,
      claim.claimedAt,
    );
    return { target, decision: 'error', detail, track: false, patched: false };
  }
  // Released, so the retry (or another delivery) may claim it again at once.
  await afterClaim(
    context,
    target,
    { message: `${detail} (attempt ${message.attempt + 1}, retrying)`, claimedAt: null },
    claim.version,
    claim.claimedAt,
  );
  return {
    target,
    decision: match.decision,
    detail,
    retry: 'failed',
    track: !fresh,
    patched: false,
  };
}

/**
 * The budget ended after the claim, before the PATCH: the claim is released (so the work item that
 * continues, or a redelivery, claims it again at once) and nothing was patched. Past the rollout's deadline
 * nothing continues it.
 */
export async function cutShort(
  match: ObjectMatch,
  claim: { version: number; claimedAt: string },
  context: AppContext,
): Promise<AppOutcome> {
  const { target } = match;
  // Cut at the earlier of the two deadlines (a timer may fire a millisecond before the clock shows it).
  const rollout = context.rolloutDeadlineMs !== undefined && context.rolloutDeadlineMs <= context.deadlineMs;
  const detail = rollout ? ROLLOUT_DEADLINE_PASSED : OUT_OF_TIME;
  await afterClaim(
    context,
    target,
    {
      message: rollout ? detail : 'out of time before its refresh; continued by the next work item',
      claimedAt: null,
    },
    claim.version,
    claim.claimedAt,
  );
  const none = { track: false, patched: false } as const;
  return rollout
    ? { target, decision: match.decision, detail, ...none }
    : { target, decision: match.decision, detail, retry: 'deferred', ...none };
}
