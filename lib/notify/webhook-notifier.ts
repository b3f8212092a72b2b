import type { NoticeLog } from './notice-log.js';
import {
  appKey,
  batchFailures,
  contentHash,
  type FailureBatch,
  isRolloutEnded,
  pendingFailures,
} from './notice-plan.js';
import { reserveNotice, settleNotice, withoutUndefined } from './notice-reserve.js';
import type { SlackNotice, SlackNoticeStore } from './notice-store.js';
import {
  type MessageLimits,
  renderAppNotice,
  renderOverflowNotice,
  renderRolloutMessage,
} from './rollout-message.js';
import type { SlackWebhook } from './slack-client.js';
import type { NoticeAction, RolloutSnapshot, SlackMessage } from './types.js';

/** The store key of the webhook's notices: an incoming webhook has one fixed channel we cannot name. */
export const WEBHOOK_CHANNEL_KEY = 'webhook';

export interface WebhookContext {
  readonly webhook: SlackWebhook;
  readonly store: SlackNoticeStore;
  readonly limits: MessageLimits & { readonly maxNoticesPerCall: number };
  readonly log: NoticeLog;
}

type Detail = { readonly app?: string; readonly apps?: number };

interface WebhookPlan {
  readonly final: boolean;
  readonly batch: FailureBatch;
  /** A halt not told yet (`halt:<wave>` in the sent list once it went out). */
  readonly halt?: string;
}

/**
 * A halted rollout is not over (its held apps wait for an operator), so no end message would say so: the
 * halt gets a message of its own, once per halted wave, kept in the sent list beside the apps' keys.
 */
function haltKey(snapshot: RolloutSnapshot): string | undefined {
  if (snapshot.status !== 'halted') return undefined;
  const wave = snapshot.waves?.find((w) => w.state === 'halted');
  return `halt:${wave?.name ?? ''}`;
}

/**
 * Webhook mode: messages cannot be edited, so one message goes out for each failed or blocked app as
 * soon as it is seen, and one summary when the rollout ends. Failures first seen in the notice that
 * sends the summary are left to it, as it names them, rather than sent twice at the same moment.
 */
export async function notifyWithWebhook(
  snapshot: RolloutSnapshot,
  previous: SlackNotice | undefined,
  ctx: WebhookContext,
): Promise<void> {
  const ended = isRolloutEnded(snapshot);
  const summary = renderRolloutMessage(snapshot, ctx.limits);
  const hash = contentHash(summary);
  const reserved = await reserveNotice<WebhookPlan>(
    ctx.store,
    snapshot.sha,
    WEBHOOK_CHANNEL_KEY,
    previous,
    (current) => {
      const pending = pendingFailures(snapshot, current?.repliedApps ?? []);
      const final = ended && current?.contentHash === undefined;
      const halt = haltKey(snapshot);
      const haltDue = !final && halt !== undefined && !(current?.repliedApps ?? []).includes(halt);
      if (!ended) ctx.log.skip('final-message', 'not-ended');
      else if (!final) ctx.log.skip('final-message', 'already-sent');
      // the end message names every failure, so those it carries need no message of their own
      const batch = final
        ? { single: [], overflow: [] }
        : batchFailures(pending, ctx.limits.maxNoticesPerCall);
      if (!final && pending.length === 0 && !haltDue) return undefined;
      const next = withoutUndefined({
        ...current,
        ...(final ? { contentHash: hash } : {}),
        repliedApps: [
          ...(current?.repliedApps ?? []),
          ...pending.map(appKey),
          ...(haltDue && halt !== undefined ? [halt] : []),
        ],
      });
      return { next, plan: { final, batch, ...(haltDue && halt !== undefined ? { halt } : {}) } };
    },
  );
  if (reserved === 'lost') ctx.log.skip('failure-message', 'claimed-elsewhere');
  if (typeof reserved === 'string') return;

  const unsent = new Set<string>();
  let halted = false;
  // `apps` are put back for a later notice when this message does not go out
  const send = async (
    action: NoticeAction,
    message: SlackMessage,
    apps: readonly string[],
    detail: Detail,
  ) => {
    if (!halted && !ctx.log.outOfTime(action)) {
      try {
        await ctx.webhook.send(message);
        ctx.log.markSent(action, detail);
        return true;
      } catch (error) {
        halted = ctx.log.slackFailed(action, error, detail.app);
      }
    }
    for (const key of apps) unsent.add(key);
    return false;
  };
  const options = { standalone: true, limits: ctx.limits };
  for (const app of reserved.plan.batch.single) {
    const key = appKey(app);
    await send('failure-message', renderAppNotice(snapshot, app, options), [key], { app: key });
  }
  const overflow = reserved.plan.batch.overflow;
  if (overflow.length > 0) {
    const overflowKeys = overflow.map(appKey);
    await send('failure-message', renderOverflowNotice(snapshot, overflow, options), overflowKeys, {
      apps: overflow.length,
    });
  }
  if (reserved.plan.halt !== undefined) {
    await send('final-message', summary, [reserved.plan.halt], {});
  }
  let finalSent = false;
  if (reserved.plan.final) {
    const before = new Set(reserved.base?.repliedApps ?? []);
    const covered = reserved.next.repliedApps.filter((key) => !before.has(key));
    finalSent = await send('final-message', summary, covered, {});
  }
  const settled = withoutUndefined({
    ...reserved.next,
    contentHash: reserved.plan.final && !finalSent ? reserved.base?.contentHash : reserved.next.contentHash,
    repliedApps: reserved.next.repliedApps.filter((key) => !unsent.has(key)),
  });
  if (!(await settleNotice(ctx.store, snapshot.sha, WEBHOOK_CHANNEL_KEY, reserved, settled))) {
    ctx.log.warn('slack notice state moved on while sending; unsent notices may not be retried');
  }
}
