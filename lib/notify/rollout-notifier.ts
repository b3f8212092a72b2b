import { type Clock, type Logger, systemClock } from '../ports.js';
import { notifyWithBot } from './bot-notifier.js';
import { NoticeLog } from './notice-log.js';
import { argocdUrls, channelFor, type NoticeFleet } from './notice-route.js';
import type { SlackNotice, SlackNoticeStore } from './notice-store.js';
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits } from './rollout-message.js';
import type { SlackApi, SlackWebhook } from './slack-client.js';
import type { NotifyResult, RolloutSnapshot } from './types.js';
import { notifyWithWebhook, WEBHOOK_CHANNEL_KEY } from './webhook-notifier.js';

export type SlackTarget =
  | { readonly mode: 'bot'; readonly api: SlackApi; readonly channel: string }
  | { readonly mode: 'webhook'; readonly webhook: SlackWebhook }
  | { readonly mode: 'off' };

export interface NotifierLimits extends MessageLimits {
  /** Per-app notices sent by one call; beyond it the rest share one overflow notice. */
  readonly maxNoticesPerCall: number;
  /** Time one notice may spend calling Slack (Retry-After waits included); the rest waits for the next. */
  readonly maxNoticeSeconds: number;
}

export const DEFAULT_NOTIFIER_LIMITS: NotifierLimits = {
  ...DEFAULT_MESSAGE_LIMITS,
  maxNoticesPerCall: 10,
  maxNoticeSeconds: 20,
};

export interface NotifierDeps {
  readonly slack: SlackTarget;
  readonly store: SlackNoticeStore;
  readonly logger: Logger;
  readonly limits?: Partial<NotifierLimits>;
  readonly clock?: Clock;
  /** Argo CD UI links and per-repository `slackChannel` routing (bot mode). */
  readonly fleet?: NoticeFleet;
  /** The rollout's page (`{PUBLIC_URL}/ui/rollouts/{sha}`), linked from the message when known. */
  readonly pageUrl?: (sha: string) => string | undefined;
}

/** The notifier port the composition root hands to `track` (and anything else that ends a rollout). */
export interface RolloutNotifier {
  /** False when Slack is off: nothing would be sent, so callers need not build a snapshot. */
  readonly active?: boolean;
  notify(snapshot: RolloutSnapshot): Promise<NotifyResult>;
}

/** The key the notice state is stored under (`SLACK#<key>`); undefined when Slack is off. */
export function noticeChannelKey(slack: SlackTarget): string | undefined {
  if (slack.mode === 'bot') return slack.channel;
  return slack.mode === 'webhook' ? WEBHOOK_CHANNEL_KEY : undefined;
}

/**
 * Decides what to send for the rollout as recorded now and sends it. Records are written by the caller
 * first; a Slack outage, a rate limit or a DynamoDB error is reported in the result and logged, never
 * thrown, so it can never fail a sync record.
 */
export async function notifyRollout(
  snapshot: RolloutSnapshot,
  previousNotice: SlackNotice | undefined,
  deps: NotifierDeps,
): Promise<NotifyResult> {
  const limits = { ...DEFAULT_NOTIFIER_LIMITS, ...deps.limits };
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now().getTime();
  const logger = deps.logger.child({ sha: snapshot.sha, repo: snapshot.repo.fullName });
  const log = new NoticeLog(logger, now() + limits.maxNoticeSeconds * 1000, now);
  try {
    const slack = deps.slack;
    if (slack.mode === 'bot') {
      const ctx = { api: slack.api, channel: slack.channel, store: deps.store, limits, log };
      await notifyWithBot(snapshot, previousNotice, ctx);
    } else if (slack.mode === 'webhook') {
      await notifyWithWebhook(snapshot, previousNotice, {
        webhook: slack.webhook,
        store: deps.store,
        limits,
        log,
      });
    } else {
      log.skip('post', 'slack-off');
    }
  } catch (error) {
    log.storeFailed(error);
  }
  return log.result();
}

/**
 * Reads the stored notice state, then notifies; never throws either. A repository with its own
 * `slackChannel` gets its messages there (bot mode), with the message reference stored under that channel.
 */
export function createRolloutNotifier(deps: NotifierDeps): RolloutNotifier {
  const links = argocdUrls(deps.fleet);
  const clock = deps.clock ?? systemClock;
  return {
    active: deps.slack.mode !== 'off',
    async notify(raw) {
      const pageUrl = deps.pageUrl?.(raw.sha);
      const snapshot = {
        ...raw,
        renderedAt: clock.now().toISOString(),
        argocdUrls: links,
        ...(pageUrl === undefined ? {} : { pageUrl }),
      };
      const channel = deps.slack.mode === 'bot' ? channelFor(snapshot, deps.fleet) : undefined;
      const routed: NotifierDeps =
        channel === undefined || deps.slack.mode !== 'bot'
          ? deps
          : { ...deps, slack: { ...deps.slack, channel } };
      const key = noticeChannelKey(routed.slack);
      if (key === undefined) return notifyRollout(snapshot, undefined, routed);
      let previous: SlackNotice | undefined;
      try {
        previous = await routed.store.get(snapshot.sha, key);
      } catch (error) {
        const log = new NoticeLog(deps.logger.child({ sha: snapshot.sha }));
        log.storeFailed(error);
        return log.result();
      }
      return notifyRollout(snapshot, previous, routed);
    },
  };
}
