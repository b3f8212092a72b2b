import { errorMessage } from '../errors.js';
import type { Logger } from '../ports.js';
import { SlackDeliveryError } from './slack-errors.js';
import type {
  NoticeAction,
  NoticeError,
  NoticeSent,
  NoticeSkipped,
  NotifyResult,
  SkipReason,
} from './types.js';

/** Collects what one notice did, logging as it goes (no tokens, URLs or secret values reach it). */
export class NoticeLog {
  private readonly sent: NoticeSent[] = [];
  private readonly skipped: NoticeSkipped[] = [];
  private readonly errors: NoticeError[] = [];

  /** `deadline` (ms since epoch, by `now`) bounds how long one notice may keep calling Slack. */
  constructor(
    private readonly logger: Logger,
    private readonly deadline = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {}

  /** True once the notice has used its time; the call is then left to the next notice. */
  outOfTime(action: NoticeAction): boolean {
    if (this.now() < this.deadline) return false;
    this.skip(action, 'deferred');
    return true;
  }

  markSent(action: NoticeAction, detail: { app?: string; apps?: number } = {}): void {
    this.sent.push({ action, ...detail });
    this.logger.debug('slack notice sent', { action, ...detail });
  }

  skip(action: NoticeAction, reason: SkipReason): void {
    if (this.skipped.some((s) => s.action === action && s.reason === reason)) return;
    this.skipped.push({ action, reason });
  }

  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.logger.warn(message, fields);
  }

  /** A Slack call failed; true when Slack is rate limiting or down, so the rest of this notice waits. */
  slackFailed(action: NoticeAction, error: unknown, app?: string): boolean {
    const failure = error instanceof SlackDeliveryError ? error.failure : 'unavailable';
    const message = error instanceof SlackDeliveryError ? error.message : 'slack call failed';
    this.errors.push({ action, failure, message, ...(app === undefined ? {} : { app }) });
    this.logger.warn('slack notice failed', {
      action,
      failure,
      error: message,
      ...(app === undefined ? {} : { app }),
    });
    return failure !== 'rejected';
  }

  storeFailed(error: unknown): void {
    // DynamoDB errors carry no secret values; their message says which condition or limit was hit
    const message = `slack notice state: ${errorMessage(error)}`;
    this.errors.push({ action: 'store', failure: 'store', message });
    this.logger.error('slack notice state failed', { error: message });
  }

  result(): NotifyResult {
    return { sent: [...this.sent], skipped: [...this.skipped], errors: [...this.errors] };
  }
}
