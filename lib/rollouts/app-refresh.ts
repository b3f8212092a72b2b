import { withDeadline } from '../concurrency.js';
import type { ObjectMatch } from '../matching/match-index.js';
import { rolloutWaveOf } from '../release/holds.js';
import type { SecretCheck } from '../secrets/secret-check.js';
import { boundedPreflight, budgetEnd, OUT_OF_TIME, ROLLOUT_DEADLINE_PASSED } from './app-budget.js';
import { afterClaim, cutShort, patchFailed } from './app-claim.js';
import { applyHold } from './app-hold.js';
import type { Decision, StoredApp } from './app-model.js';
import { patchFor, withRaw } from './app-patch.js';
import { pinScopeFor, pinWhereItIs } from './app-pin.js';
import { endedLater, supersededBy } from './app-superseded.js';
import { liveVerdict } from './live-verdict.js';
import type { AppChange } from './ports/app-state.js';
import { describeBlock, preflightNote } from './preflight-verdict.js';
import { imageAliases, withRolloutRevision } from './registry-revisions.js';
import { type AppState, isTerminal } from './state-model.js';
import type { AppContext, AppOutcome } from './work-model.js';

// One matched object's refresh, step by step: what was recorded earlier, a later commit that took it over,
// release control's holds, the claim, the preflight, the PATCH and the record of what happened.

/** The decisions that refresh an object (the others are misses, recorded as decisions only). */
export const REFRESH_DECISIONS: ReadonlySet<Decision> = new Set(['refreshed', 'refreshed-unknown-files']);

/** A registry push: the app's digest or chart version read as the rollout's key (registry-revisions.ts). */
function liveAtKey(match: ObjectMatch, message: AppContext['message']): ObjectMatch['object'] {
  const { image } = message.event;
  if (image === undefined || match.object.kind !== 'Application') return match.object;
  return {
    ...match.object,
    raw: withRolloutRevision(match.object.raw, message.event.after, imageAliases(image)),
  };
}

/** States a `retry` work item preflights again and refreshes (an operator's or the catch-up's retry). */
const RETRIED: ReadonlySet<AppState> = new Set(['blocked', 'error', 'timeout', 'failed']);

export async function refreshApp(
  match: ObjectMatch,
  previous: StoredApp | undefined,
  context: AppContext,
): Promise<AppOutcome> {
  const { deps, meta, message, cluster, ledger } = context;
  const { target } = match;
  const none = { track: false, patched: false } as const;
  if (!REFRESH_DECISIONS.has(match.decision))
    return { target, decision: match.decision, detail: match.reason, ...none };
  const now = deps.clock.now();
  const destination =
    match.object.kind === 'Application' ? deps.destination?.(cluster.name, match.object.raw) : undefined;
  // The rollout's own waves once release control has read them; the fleet's present ones only without.
  const wave =
    context.holds === undefined
      ? deps.waveOf?.(destination ?? cluster.name)
      : rolloutWaveOf(context.holds.control?.waves, destination ?? cluster.name);
  const base = {
    ...target,
    ...(destination === undefined ? {} : { destination }),
    ...(wave === undefined ? {} : { wave }),
  };

  // A redelivery never turns an earlier block or error into something else; only a `retry` item retries it.
  const retrying = message.retry === true && previous !== undefined && RETRIED.has(previous.state);
  if (!retrying && (previous?.state === 'blocked' || previous?.state === 'error')) {
    return { target, decision: previous.state, detail: previous.message ?? 'recorded earlier', ...none };
  }
  const live = liveVerdict(liveAtKey(match, message), meta.sha, message.head);
  const superseded = await supersededBy(live, previous, { ...base, now }, context);
  if (superseded !== undefined) return { target, decision: 'superseded', detail: superseded, ...none };
  // A retried app at the commit (a failed sync, a timeout) is refreshed again.
  if (live.kind === 'at-commit' && !retrying) {
    if (previous === undefined) {
      await ledger.recordApp(meta, {
        ...base,
        state: 'refreshed',
        decision: match.decision,
        revision: meta.sha,
        message: 'already at the pushed commit: nothing to refresh',
      });
    } else if (previous.state === 'held') {
      // Argo CD took it to the commit by itself (its polling, another app's resolve): the hold was advisory.
      // It is followed to its end like any other, whatever held it.
      await ledger.transition(
        meta.sha,
        target,
        {
          state: 'refreshed',
          revision: meta.sha,
          message:
            'already at the pushed commit: Argo CD moved it while it was held (the hold is advisory here)',
        },
        previous.version,
      );
    }
    const track = previous === undefined || !isTerminal(previous.state);
    return {
      target,
      decision: match.decision,
      detail: 'already at the pushed commit',
      track,
      patched: false,
    };
  }
  if (!retrying && previous !== undefined && endedLater(previous, live, meta.sha)) {
    const detail = `ended at ${(previous.revision as string).slice(0, 12)}, a later commit of ${meta.ref}`;
    return { target, decision: match.decision, detail, ...none };
  }
  const hold = await applyHold(match, previous, base, context);
  if (hold !== undefined) {
    if (hold.decision === 'held') await pinWhereItIs(match, context);
    return hold;
  }
  const windowMs = (deps.refreshWindowSeconds ?? 60) * 1000;
  // Within the window a claim stands while the app is in flight; an app that ended and is not at the commit
  // any more (a rollback to it) is claimed again at once.
  if (
    previous?.claimedAt !== undefined &&
    !isTerminal(previous.state) &&
    now.getTime() - Date.parse(previous.claimedAt) < windowMs
  ) {
    const detail = 'refreshed by an earlier delivery of this commit';
    return { target, decision: match.decision, detail, track: !isTerminal(previous.state), patched: false };
  }
  const ended = budgetEnd(context);
  if (ended === 'rollout')
    return { target, decision: match.decision, detail: ROLLOUT_DEADLINE_PASSED, ...none };
  if (ended === 'invocation') {
    return { target, decision: match.decision, detail: OUT_OF_TIME, retry: 'deferred', ...none };
  }

  // A terminal app that is not at the commit any more (a rollback to it) starts a new round.
  const reopen = previous !== undefined && isTerminal(previous.state);
  // `matched`: an earlier attempt claimed it and could not patch it; this one starts it over.
  // `held`: its hold lifted; it starts as if new (preflighted at the commit now, then patched).
  const fresh = previous === undefined || reopen || previous.state === 'matched' || previous.state === 'held';
  const claimedAt = now.toISOString();
  const version = await ledger.claimApp(
    meta,
    {
      ...base,
      state: fresh ? 'matched' : (previous as StoredApp).state,
      decision: match.decision,
      claimedAt,
      message: 'refreshing',
      ...(live.revision === undefined ? {} : { fromRevision: live.revision }),
    },
    previous?.version,
  );
  if (version === undefined) {
    return {
      target,
      decision: match.decision,
      detail: 'refreshed by a concurrent delivery',
      track: true,
      patched: false,
    };
  }

  let secrets: readonly SecretCheck[] | undefined;
  let rendered: Pick<AppChange, 'renderedBy' | 'renderNote' | 'preflight'> = {};
  if (match.object.kind === 'Application' && fresh) {
    const verdict = await boundedPreflight(match, context);
    if (verdict === undefined) return cutShort(match, { version, claimedAt }, context);
    secrets = verdict.checks.length > 0 ? verdict.checks : undefined;
    rendered = {
      ...(verdict.renderedBy === undefined ? {} : { renderedBy: verdict.renderedBy }),
      ...(verdict.renderNote === undefined ? {} : { renderNote: verdict.renderNote }),
      preflight: preflightNote(verdict),
    };
    if (verdict.verdict === 'block') {
      const detail = describeBlock(verdict);
      await pinWhereItIs(match, context);
      await afterClaim(
        context,
        target,
        {
          state: 'blocked',
          decision: 'blocked',
          message: detail,
          finishedAt: now.toISOString(),
          ...(secrets === undefined ? {} : { secrets }),
          ...rendered,
        },
        version,
        claimedAt,
      );
      return { target, decision: 'blocked', detail, ...none };
    }
  }

  // The preflight may have used up the budget: the PATCH is not started past it.
  if (budgetEnd(context) !== undefined) return cutShort(match, { version, claimedAt }, context);
  const pin = pinScopeFor(match, context);
  const patch = patchFor(match, deps.clock, pin);
  try {
    if (patch !== undefined) {
      // A pinned multi-source app's patch carries the resourceVersion it was built at: read again on a 409.
      const rebuild = (current: unknown) => patchFor(withRaw(match, current), deps.clock, pin);
      await withDeadline(cluster.patch(target, patch, rebuild), context.deadlineMs, `refresh ${target.name}`);
    }
  } catch (error) {
    return patchFailed(match, error, { version, claimedAt }, fresh, context);
  }
  await afterClaim(
    context,
    target,
    {
      ...(fresh ? { state: 'refreshed' } : {}),
      refreshedAt: now.toISOString(),
      message: retrying
        ? retriedMessage(previous as StoredApp)
        : patch === undefined
          ? 'a hard refresh was already pending'
          : null,
      ...(secrets === undefined ? {} : { secrets }),
      ...rendered,
    },
    version,
    claimedAt,
  );
  return {
    target,
    decision: match.decision,
    detail: match.reason,
    track: true,
    patched: patch !== undefined,
  };
}

function retriedMessage(previous: StoredApp): string {
  return previous.state === 'blocked' ? 'preflight passes now' : `retried after it ended ${previous.state}`;
}
