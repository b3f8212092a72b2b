import { UpstreamError } from '../errors.js';

export const SLACK_FAILURES = ['rate-limited', 'unavailable', 'rejected'] as const;
export type SlackFailure = (typeof SLACK_FAILURES)[number];

export interface SlackFailureDetail {
  /** Slack's own error code (`invalid_auth`, `message_not_found`, `channel_not_found`, …). */
  readonly slackError?: string;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
}

/**
 * A Slack call that did not go through. The message names the operation and Slack's error code only:
 * never the token, the webhook URL (its path is the secret) or the SDK's error, which may quote either.
 */
export class SlackDeliveryError extends UpstreamError {
  readonly failure: SlackFailure;
  readonly slackError: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(operation: string, failure: SlackFailure, detail: SlackFailureDetail = {}) {
    super(`slack ${operation} ${failure}${describe(detail)}`, {
      retryable: failure !== 'rejected',
      code: `slack-${failure}`,
      ...(detail.status === undefined ? {} : { upstreamStatus: detail.status }),
    });
    this.failure = failure;
    this.slackError = detail.slackError;
    this.retryAfterSeconds = detail.retryAfterSeconds;
  }
}

function describe(detail: SlackFailureDetail): string {
  const parts: string[] = [];
  if (detail.slackError !== undefined) parts.push(detail.slackError);
  if (detail.status !== undefined) parts.push(`http ${detail.status}`);
  if (detail.retryAfterSeconds !== undefined) parts.push(`retry after ${detail.retryAfterSeconds} s`);
  return parts.length === 0 ? '' : `: ${parts.join(', ')}`;
}

/** Slack error codes are short snake_case words; anything else in a body is not repeated. */
export function slackErrorCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[a-z0-9_]{1,64}$/.test(value.trim()) ? value.trim() : undefined;
}
