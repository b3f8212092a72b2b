import { DeadlineError, withDeadline } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { ObjectMatch } from '../matching/match-index.js';
import type { ClusterWorkMessage } from '../queue/messages.js';
import type { AppContext, PreflightVerdict, RefreshContext } from './work-model.js';

// The time budget of one work item, phase by phase: no phase (listing, preflight and its render, PATCH,
// records) starts once the invocation's budget is spent, a phase in flight is abandoned at it, and nothing
// is patched once the rollout's own deadline has passed. Budgets are real time (the Lambda's remaining
// time), whatever clock the records use.

/** Why no more work may start: the invocation's budget is spent, or the rollout's deadline passed. */
export type BudgetEnd = 'invocation' | 'rollout';

export function budgetEnd(
  context: Pick<RefreshContext, 'deadlineMs' | 'rolloutDeadlineMs'>,
): BudgetEnd | undefined {
  const now = Date.now();
  if (context.rolloutDeadlineMs !== undefined && now >= context.rolloutDeadlineMs) return 'rollout';
  return now >= context.deadlineMs ? 'invocation' : undefined;
}

/** The work item's rollout has passed its own deadline (nothing is patched or preflighted for it now). */
export function rolloutDeadlinePassed(message: Pick<ClusterWorkMessage, 'deadline'>): boolean {
  return message.deadline !== undefined && Date.now() >= Date.parse(message.deadline);
}

export const ROLLOUT_DEADLINE_PASSED = "not refreshed: the rollout's deadline passed first";
export const OUT_OF_TIME = 'out of time';

/**
 * The app's preflight within the invocation's budget: `undefined` when the budget ended before or during
 * it (an Argo CD render can take 20 s and more); a failure of its own warns, as before.
 */
export async function boundedPreflight(
  match: ObjectMatch,
  context: AppContext,
): Promise<PreflightVerdict | undefined> {
  if (budgetEnd(context) !== undefined) return undefined;
  const deadlineMs = Math.min(context.deadlineMs, context.rolloutDeadlineMs ?? Number.POSITIVE_INFINITY);
  try {
    // The deadline also reaches the Argo CD client below, which ends its render request at it.
    return await withDeadline(
      context.deps.preflight(match, context.message.event, { deadlineMs }),
      deadlineMs,
      `preflight of ${match.target.name}`,
    );
  } catch (error) {
    if (error instanceof DeadlineError) return undefined;
    return { verdict: 'warn', checks: [], summary: `preflight failed: ${errorMessage(error)}` };
  }
}
