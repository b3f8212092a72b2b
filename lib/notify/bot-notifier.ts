import { batchByCause, type CauseBatch, renderCauseNotice } from './cause-groups.js';
import type { NoticeLog } from './notice-log.js';
import { appKey, contentHash, pendingFailures, rolloutProgress } from './notice-plan.js';
import {
  type NoticeDraft,
  type Reservation,
  reserveNotice,
  settleNotice,
  withoutUndefined,
} from './notice-reserve.js';
import type { SlackNotice, SlackNoticeStore } from './notice-store.js';
import {
  type MessageLimits,
  renderOverflowNotice,
  renderRefNotice,
  renderRolloutMessage,
} from './rollout-message.js';
import type { SlackApi } from './slack-client.js';
import { SlackDeliveryError } from './slack-errors.js';
import type { RolloutSnapshot, SlackMessage } from './types.js';

export interface BotContext {
  readonly api: SlackApi;
  /** The configured channel (`SLACK_CHANNEL`): the store key, and where the first message goes. */
  readonly channel: string;
  readonly store: SlackNoticeStore;
  readonly limits: MessageLimits & { readonly maxNoticesPerCall: number };
  readonly log: NoticeLog;
}

interface BotPlan {
  readonly update: boolean;
  /** Failed or blocked apps, one reply per cause (apps sharing one are named in one reply). */
  readonly batch: CauseBatch;
  /** Refs (a tag pushed later on this commit) that get a thread reply saying so. */
  readonly refs: readonly string[];
}

/**
 * Bot mode, after Argo CD Notifications' `PostAndUpdate` with the thread root kept in DynamoDB:
 * the first notice posts the rollout's one message, later ones edit it when its content changed,
 * and each cause of failed or blocked apps gets one thread reply (lib/notify/cause-groups.ts).
 */
export async function notifyWithBot(
  snapshot: RolloutSnapshot,
  previous: SlackNotice | undefined,
  ctx: BotContext,
): Promise<void> {
  const message = renderRolloutMessage(snapshot, ctx.limits);
  if (previous?.ts === undefined) return firstPost(snapshot, message, ctx);
  const hash = contentHash(message);
  const progress = rolloutProgress(snapshot);
  const reserved = await reserveNotice<BotPlan>(ctx.store, snapshot.sha, ctx.channel, previous, (current) => {
    if (current?.ts === undefined) return undefined;
    const stale = progress < (current.progress ?? 0);
    const update = current.contentHash !== hash && !stale;
    if (!update) ctx.log.skip('update', stale ? 'stale-snapshot' : 'unchanged');
    const batch = batchByCause(pendingFailures(snapshot, current.repliedApps), ctx.limits.maxNoticesPerCall);
    const refs = newRefs(snapshot, current.repliedApps);
    if (!update && batch.groups.length + batch.overflow.length + refs.length === 0) return undefined;
    const next = withoutUndefined({
      ...current,
      ...(update ? { contentHash: hash, progress } : {}),
      repliedApps: [...current.repliedApps, ...keys(batch), ...refs.map(refKey)],
    });
    return { next, plan: { update, batch, refs } };
  });
  if (reserved === 'lost') ctx.log.skip('update', 'claimed-elsewhere');
  if (typeof reserved === 'string') return;
  await send(snapshot, message, reserved, ctx);
}

async function firstPost(snapshot: RolloutSnapshot, message: SlackMessage, ctx: BotContext): Promise<void> {
  if (!(await ctx.store.claim(snapshot.sha, ctx.channel))) return ctx.log.skip('post', 'claimed-elsewhere');
  let root: { ts: string; channel: string };
  try {
    root = await ctx.api.postMessage({ channel: ctx.channel, ...message });
  } catch (error) {
    ctx.log.slackFailed('post', error);
    return ctx.store.release(snapshot.sha, ctx.channel);
  }
  ctx.log.markSent('post');
  const batch = batchByCause(pendingFailures(snapshot, []), ctx.limits.maxNoticesPerCall);
  const posted = {
    ts: root.ts,
    channelId: root.channel,
    contentHash: contentHash(message),
    progress: rolloutProgress(snapshot),
  };
  // The first message names every ref it knows; only refs arriving later get a reply of their own.
  const next = { ...posted, repliedApps: [...keys(batch), ...newRefs(snapshot, []).map(refKey)] };
  if (!(await ctx.store.save(snapshot.sha, ctx.channel, next, 1))) {
    return ctx.log.warn('slack claim was taken over while posting; the message may appear twice');
  }
  const reserved: Reservation<BotPlan> = {
    base: { ...posted, version: 1, claimedAt: '', repliedApps: [] },
    next,
    plan: { update: false, batch, refs: [] },
    version: 2,
  };
  await send(snapshot, message, reserved, ctx);
}

/** Makes the reserved calls; whatever did not go through is put back for the next notice. */
async function send(
  snapshot: RolloutSnapshot,
  message: SlackMessage,
  reserved: Reservation<BotPlan>,
  ctx: BotContext,
): Promise<void> {
  const base = reserved.base as SlackNotice & { ts: string };
  const state: NoticeDraft = { ...reserved.next };
  let halted = false;
  if (reserved.plan.update) {
    try {
      await ctx.api.updateMessage({ channel: base.channelId ?? ctx.channel, ts: base.ts, ...message });
      ctx.log.markSent('update');
    } catch (error) {
      const reposted = isMessageGone(error) ? await repost(message, state, ctx) : 'failed';
      if (reposted === 'failed') halted = ctx.log.slackFailed('update', error);
      if (reposted === 'halted') halted = true;
      if (reposted !== 'posted')
        Object.assign(state, { contentHash: base.contentHash, progress: base.progress });
    }
  }
  const unsent = new Set<string>();
  const thread = { channel: state.channelId ?? ctx.channel, threadTs: state.ts ?? base.ts };
  // `replyKeys` are put back for a later notice when this reply does not go out
  const reply = async (replyKeys: readonly string[], build: () => SlackMessage, app?: string) => {
    if (!halted && !ctx.log.outOfTime('reply')) {
      try {
        await ctx.api.postMessage({ ...thread, ...build() });
        ctx.log.markSent('reply', app === undefined ? { apps: replyKeys.length } : { app });
        return;
      } catch (error) {
        halted = ctx.log.slackFailed('reply', error, app);
      }
    }
    for (const key of replyKeys) unsent.add(key);
  };
  const inThread = { standalone: false, limits: ctx.limits };
  for (const group of reserved.plan.batch.groups) {
    const [only] = group.apps;
    const build = () => renderCauseNotice(snapshot, group, ctx.limits);
    await reply(group.apps.map(appKey), build, group.apps.length === 1 && only ? appKey(only) : undefined);
  }
  const overflow = reserved.plan.batch.overflow;
  if (overflow.length > 0) {
    await reply(overflow.map(appKey), () => renderOverflowNotice(snapshot, overflow, inThread));
  }
  for (const ref of reserved.plan.refs) await reply([refKey(ref)], () => renderRefNotice(snapshot, ref));
  state.repliedApps = state.repliedApps.filter((key) => !unsent.has(key));
  const settled = withoutUndefined(state);
  if (!(await settleNotice(ctx.store, snapshot.sha, ctx.channel, reserved, settled))) {
    ctx.log.warn('slack notice state moved on while sending; unsent notices may not be retried');
  }
}

/** Someone deleted the rollout's message: post it again and follow the new one from now on. */
async function repost(
  message: SlackMessage,
  state: NoticeDraft,
  ctx: BotContext,
): Promise<'posted' | 'failed' | 'halted'> {
  try {
    const root = await ctx.api.postMessage({ channel: ctx.channel, ...message });
    Object.assign(state, { ts: root.ts, channelId: root.channel });
    ctx.log.markSent('post');
    return 'posted';
  } catch (error) {
    return ctx.log.slackFailed('post', error) ? 'halted' : 'failed';
  }
}

function isMessageGone(error: unknown): boolean {
  return error instanceof SlackDeliveryError && error.slackError === 'message_not_found';
}

/** Refs of the commit other than the one it was first pushed on, not yet announced. */
function newRefs(snapshot: RolloutSnapshot, replied: readonly string[]): string[] {
  const done = new Set(replied);
  return [...new Set(snapshot.refs ?? [])].filter((ref) => ref !== snapshot.ref && !done.has(refKey(ref)));
}

/** Stored with the app keys (an app key starts with a cluster name, which has no colon). */
function refKey(ref: string): string {
  return `ref:${ref}`;
}

function keys(batch: CauseBatch): string[] {
  return [...batch.groups.flatMap((g) => g.apps), ...batch.overflow].map(appKey);
}
