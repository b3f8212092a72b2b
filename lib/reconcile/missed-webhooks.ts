import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import type { MissedPush } from './behind.js';
import { planCatchUp } from './catch-up.js';
import {
  catchUpRetryDeliveryId,
  catchUpRetryMessage,
  missedWebhookDeliveryId,
  missedWebhookMessage,
} from './missed-push-event.js';
import type { CatchUpRollouts, ReconcileMemory } from './ports.js';

export const MISSED_WEBHOOK_ACTIONS = [
  'waiting',
  'enqueued',
  'already-enqueued',
  'rollout-exists',
  'retried',
  'failed',
] as const;
export type MissedWebhookAction = (typeof MISSED_WEBHOOK_ACTIONS)[number];

export interface MissedWebhookReport {
  /** Canonical repository key. */
  readonly repo: string;
  readonly ref: string;
  readonly sha: string;
  /** Apps behind this commit. */
  readonly apps: number;
  readonly behindSince: string;
  /**
   * `waiting`: still inside the grace period; `enqueued`: the apps that needed it were sent for a refresh;
   * `retried`: only a retry of its `blocked`/`error` apps was sent; `rollout-exists`: nothing to do there.
   */
  readonly action: MissedWebhookAction;
  /** Apps sent for a refresh, when not every app behind (the commit has a rollout). */
  readonly refreshed?: number;
  /** Apps sent for a retry (their record there is `blocked` or `error`). */
  readonly retried?: number;
  readonly error?: string;
}

export interface MissedWebhookDeps {
  readonly memory: Pick<ReconcileMemory, 'claimMissedWebhook' | 'releaseMissedWebhook'>;
  readonly rollouts: CatchUpRollouts;
  readonly pushQueue: Queue<PushMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly graceMs: number;
  /** An app claimed within this window is still in flight: not sent again (fan-out's window, default 60 s). */
  readonly refreshWindowMs?: number;
}

/**
 * Enqueues one schedule-triggered push per (repository, ref, commit) apps are behind past the grace period.
 * For a commit with a rollout only the apps that need it go: those with no record there (or one that ended
 * elsewhere) in that push, and those `blocked` or `error` there in a `retry` push sent on every pass; `held`,
 * `aborted` and apps within the refresh window of a claim are left alone. The claim is taken before sending
 * and given back if sending fails, so a refresh push is never enqueued twice; a retry push goes once a pass.
 */
export async function enqueueMissedPushes(
  pushes: readonly MissedPush[],
  deps: MissedWebhookDeps,
): Promise<MissedWebhookReport[]> {
  const settled = await mapWithConcurrency(pushes, 4, async (push): Promise<MissedWebhookReport> => {
    const now = deps.clock.now();
    const report = {
      repo: push.repoKey,
      ref: push.ref,
      sha: push.sha,
      apps: push.apps.length,
      behindSince: new Date(push.since).toISOString(),
    };
    if (now.getTime() - push.since < deps.graceMs) return { ...report, action: 'waiting' };
    const exists = await deps.rollouts.exists(push.sha);
    const records = exists ? await deps.rollouts.listApps(push.sha) : [];
    // Apps the push deliberately left alone (their paths or revision did not match) are not behind it.
    const missed = exists ? ((await deps.rollouts.decisions?.(push.sha)) ?? []) : [];
    const plan = planCatchUp(push.apps, records, now.getTime(), deps.refreshWindowMs ?? 60_000, missed);
    const counts = exists
      ? {
          ...(plan.refresh.length > 0 ? { refreshed: plan.refresh.length } : {}),
          ...(plan.retry.length > 0 ? { retried: plan.retry.length } : {}),
        }
      : {};
    let action: MissedWebhookAction = exists ? 'rollout-exists' : 'already-enqueued';
    if (plan.refresh.length > 0) {
      if (await enqueueRefresh({ ...push, apps: plan.refresh }, now, deps)) action = 'enqueued';
      else if (exists) action = 'already-enqueued';
    }
    if (plan.retry.length > 0) {
      const retry = catchUpRetryMessage({ ...push, apps: plan.retry }, now);
      await deps.pushQueue.send(retry, { deduplicationId: catchUpRetryDeliveryId(push, now) });
      deps.logger.info('catch-up retry enqueued', {
        repo: push.repoKey,
        sha: push.sha,
        apps: plan.retry.length,
      });
      if (action !== 'enqueued') action = 'retried';
    }
    return { ...report, action, ...counts };
  });
  return settled.map((result, i): MissedWebhookReport => {
    if (result.status === 'fulfilled') return result.value;
    const push = pushes[i] as MissedPush;
    const error = errorMessage(result.reason);
    deps.logger.error('missed webhook not enqueued', {
      repo: push.repoKey,
      ref: push.ref,
      sha: push.sha,
      error,
    });
    return {
      repo: push.repoKey,
      ref: push.ref,
      sha: push.sha,
      apps: push.apps.length,
      behindSince: new Date(push.since).toISOString(),
      action: 'failed',
      error,
    };
  });
}

/** The refresh push, under the commit's claim: false when an earlier pass enqueued it already. */
async function enqueueRefresh(push: MissedPush, now: Date, deps: MissedWebhookDeps): Promise<boolean> {
  if (!(await deps.memory.claimMissedWebhook(push.key, now))) return false;
  const message = missedWebhookMessage(push, now);
  try {
    await deps.pushQueue.send(message, { deduplicationId: missedWebhookDeliveryId(push) });
  } catch (error) {
    await deps.memory.releaseMissedWebhook(push.key).catch((releaseError: unknown) => {
      deps.logger.error('missed webhook claim not released', {
        key: push.key,
        error: errorMessage(releaseError),
      });
    });
    throw error;
  }
  deps.logger.info('missed webhook enqueued', {
    repo: push.repoKey,
    ref: push.ref,
    sha: push.sha,
    apps: push.apps.length,
    before: message.event.before,
  });
  return true;
}
