import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../errors.js';
import type { Clock, Logger, Queue } from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import type { MissedPush } from './behind.js';
import { missedWebhookDeliveryId, missedWebhookMessage } from './missed-push-event.js';
import type { ReconcileMemory, RolloutExistence } from './ports.js';

export const MISSED_WEBHOOK_ACTIONS = [
  'waiting',
  'enqueued',
  'already-enqueued',
  'rollout-exists',
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
  /** `waiting`: still inside the grace period. */
  readonly action: MissedWebhookAction;
  readonly error?: string;
}

export interface MissedWebhookDeps {
  readonly memory: Pick<ReconcileMemory, 'claimMissedWebhook' | 'releaseMissedWebhook'>;
  readonly rollouts: RolloutExistence;
  readonly pushQueue: Queue<PushMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly graceMs: number;
}

/**
 * Enqueues one schedule-triggered push per (repository, ref, commit) apps are behind past the grace period,
 * unless a rollout for the commit exists (its webhook came) or it was enqueued before. The claim is taken
 * before sending and given back if sending fails, so a push is never enqueued twice.
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
    if (await deps.rollouts.exists(push.sha)) return { ...report, action: 'rollout-exists' };
    if (!(await deps.memory.claimMissedWebhook(push.key, now))) {
      return { ...report, action: 'already-enqueued' };
    }
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
    return { ...report, action: 'enqueued' };
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
