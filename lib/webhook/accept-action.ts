import { withDeadline } from '../concurrency.js';
import { describeError, type HttpResponse, json } from '../http/response.js';
import type { Clock, DeliveryStore, Logger } from '../ports.js';
import type { ParsedDelivery } from './delivery.js';
import type { EnqueueOnceOptions } from './enqueue-once.js';
import { type EnqueueOutcome, enqueueOnce } from './enqueue-once.js';
import type { RequestedAction } from './github-check-run.js';
import { unavailable } from './unavailable.js';

/** What running a requested action needs: the action itself and the delivery records it runs once by. */
export interface ActionDeps {
  readonly actions?: (action: RequestedAction) => Promise<ActionOutcome>;
  readonly deliveries: DeliveryStore;
  readonly clock: Clock;
  readonly enqueue?: EnqueueOnceOptions;
}

/** What a requested action did: `done` (with a detail for the answer), or why nothing was done. */
export type ActionOutcome =
  | { readonly kind: 'done'; readonly detail?: string }
  | { readonly kind: 'ignored'; readonly reason: string };

export /**
 * A check run's button, run once per delivery id (the push de-duplication: a redelivery is a duplicate
 * once the action ran). Its own failure is a 503, so an operator's redelivery runs it again.
 */
async function acceptAction(
  delivery: Extract<ParsedDelivery, { kind: 'action' }>,
  logger: Logger,
  deps: ActionDeps,
  deadlineMs: number,
): Promise<HttpResponse> {
  const { action, deliveryId } = delivery;
  const log = logger.child({ repo: action.repo.fullName, sha: action.sha, action: action.identifier });
  const run = deps.actions;
  if (run === undefined) {
    log.info('webhook ignored', { reason: 'check run actions are not enabled' });
    return json(202, { ignored: 'check run actions are not enabled' });
  }
  let outcome: ActionOutcome | undefined;
  let enqueued: EnqueueOutcome;
  try {
    const once = enqueueOnce(
      deps.deliveries,
      {
        provider: 'github',
        deliveryId,
        event: delivery.eventName,
        repo: action.repo.urls[0] ?? action.repo.fullName,
        ref: `check_run:${action.identifier}`,
        sha: action.sha,
        receivedAt: deps.clock.now().toISOString(),
      },
      async () => {
        outcome = await run(action);
      },
      log,
      deps.enqueue,
    );
    enqueued = await withDeadline(once, deadlineMs, 'webhook action');
  } catch (error) {
    log.error('requested action failed', { error: describeError(error) });
    return unavailable();
  }
  if (enqueued === 'duplicate' || outcome === undefined) {
    log.info('webhook duplicate');
    return json(200, { duplicate: true });
  }
  if (outcome.kind === 'ignored') {
    log.info('requested action did nothing', { reason: outcome.reason });
    return json(202, { ignored: outcome.reason });
  }
  log.info('requested action done', {
    by: action.by,
    ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
  });
  return json(202, {
    delivery: deliveryId,
    rollout: action.sha,
    action: action.identifier,
    ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
  });
}
