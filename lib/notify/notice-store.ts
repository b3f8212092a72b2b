/**
 * What has been sent to Slack for one rollout and one destination (bot channel, or `webhook`).
 * `version` is an optimistic lock: notifiers reserve what they are about to send with a save conditional
 * on the version they read, so two concurrent pollers never send the same thing twice.
 */
export interface SlackNotice {
  readonly version: number;
  readonly claimedAt: string;
  /** The one message of this rollout (bot mode); absent while the right to post is only claimed. */
  readonly ts?: string;
  /** The channel id Slack answered with; `chat.update` needs it even when the setting names `#channel`. */
  readonly channelId?: string;
  /** Hash of the content last sent (bot mode: the message; webhook mode: the end-of-rollout message). */
  readonly contentHash?: string;
  /** How far the rollout had got when it was last rendered; an older snapshot never overwrites a newer one. */
  readonly progress?: number;
  /** Apps whose failure or block has had its own notice (thread reply or webhook message). */
  readonly repliedApps: readonly string[];
}

export type SlackNoticeUpdate = Omit<SlackNotice, 'version' | 'claimedAt'>;

/** The notice state port; `lib/store/slack-refs.ts` implements it on the single DynamoDB table. */
export interface SlackNoticeStore {
  get(sha: string, channel: string): Promise<SlackNotice | undefined>;
  /**
   * Conditional put of a claim (version 1): true for the one caller that may post the first message.
   * A claim that never got its `ts` (its holder died) can be taken over once it is stale.
   */
  claim(sha: string, channel: string): Promise<boolean>;
  /**
   * Writes the state as version `expectedVersion + 1`, only if the stored version is `expectedVersion`
   * (0: no item yet). False when another notifier saved in between.
   */
  save(sha: string, channel: string, update: SlackNoticeUpdate, expectedVersion: number): Promise<boolean>;
  /** Gives up a claim whose first post failed, so the next notice may try again. */
  release(sha: string, channel: string): Promise<void>;
}
