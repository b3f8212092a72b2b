import {
  type KnownBlock,
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebClient,
  type WebClientOptions,
} from '@slack/web-api';
import type { Logger } from '../ports.js';
import { DEFAULT_RETRY_BUDGET, type RetryBudget, withBoundedRetry } from './bounded-retry.js';
import { SlackDeliveryError, slackErrorCode } from './slack-errors.js';
import type { SlackBlock, SlackMessage } from './types.js';

export interface PostMessageInput extends SlackMessage {
  readonly channel: string;
  /** Post as a reply in the thread of this message. */
  readonly threadTs?: string;
}

export interface UpdateMessageInput extends SlackMessage {
  /** The channel id Slack returned when the message was posted. */
  readonly channel: string;
  readonly ts: string;
}

export interface PostedMessage {
  readonly ts: string;
  readonly channel: string;
}

/** Slack Web API with a bot token (`chat:write`). Throws SlackDeliveryError. */
export interface SlackApi {
  postMessage(input: PostMessageInput): Promise<PostedMessage>;
  updateMessage(input: UpdateMessageInput): Promise<PostedMessage>;
}

/** A Slack incoming webhook (its channel is fixed when the webhook is made). Throws SlackDeliveryError. */
export interface SlackWebhook {
  send(message: SlackMessage): Promise<void>;
}

export interface SlackApiOptions {
  readonly token: string;
  /** `SLACK_API_URL`; Slack's own (`https://slack.com/api/`) when absent. */
  readonly apiUrl?: string;
  /** Per-request timeout. */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryBudget>;
  readonly logger: Logger;
}

/** Platform errors that mean "Slack is having trouble", worth one more try. */
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * The SDK's own retries are off (its default policy can wait half an hour) and rate-limited calls are
 * rejected at once, so the bounded loop here decides, honouring Retry-After up to its budget.
 */
export function createSlackApi(options: SlackApiOptions): SlackApi {
  const clientOptions: WebClientOptions = {
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? 4000,
    allowAbsoluteUrls: false,
    logger: sdkLogger(options.logger),
    logLevel: LogLevel.WARN,
    ...(options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl }),
  };
  const client = new WebClient(options.token, clientOptions);
  const budget: RetryBudget = { ...DEFAULT_RETRY_BUDGET, ...options.retry };
  return {
    postMessage: (input) =>
      withBoundedRetry(
        async () =>
          posted(
            'chat.postMessage',
            await client.chat.postMessage({
              channel: input.channel,
              text: input.text,
              blocks: knownBlocks(input.blocks),
              unfurl_links: false,
              unfurl_media: false,
              ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
            }),
          ),
        (error) => classify('chat.postMessage', error),
        budget,
      ),
    updateMessage: (input) =>
      withBoundedRetry(
        async () =>
          posted(
            'chat.update',
            await client.chat.update({
              channel: input.channel,
              ts: input.ts,
              text: input.text,
              blocks: knownBlocks(input.blocks),
            }),
          ),
        (error) => classify('chat.update', error),
        budget,
      ),
  };
}

function knownBlocks(blocks: readonly SlackBlock[]): KnownBlock[] {
  // our blocks are a structural subset of Block Kit; the SDK only wants mutable arrays
  return blocks.map((block) => structuredClone(block) as KnownBlock);
}

function posted(operation: string, result: { ts?: string; channel?: string }): PostedMessage {
  if (typeof result.ts !== 'string' || typeof result.channel !== 'string') {
    throw new SlackDeliveryError(operation, 'rejected', { slackError: 'invalid_response' });
  }
  return { ts: result.ts, channel: result.channel };
}

function classify(operation: string, error: unknown): SlackDeliveryError {
  if (error instanceof SlackDeliveryError) return error;
  if (error instanceof WebAPIRateLimitedError) {
    return new SlackDeliveryError(operation, 'rate-limited', {
      status: 429,
      retryAfterSeconds: error.retryAfter,
    });
  }
  if (error instanceof WebAPIPlatformError) {
    const code = slackErrorCode(error.data.error) ?? 'unknown_error';
    if (code === 'ratelimited')
      return new SlackDeliveryError(operation, 'rate-limited', { slackError: code });
    const failure = TRANSIENT_ERRORS.has(code) ? 'unavailable' : 'rejected';
    return new SlackDeliveryError(operation, failure, { slackError: code });
  }
  if (error instanceof WebAPIHTTPError) {
    const failure = error.statusCode >= 500 ? 'unavailable' : 'rejected';
    return new SlackDeliveryError(operation, failure, { status: error.statusCode });
  }
  // a 429 whose Retry-After the SDK could not parse surfaces as a plain Error
  if (error instanceof Error && /rate limit|retry header/i.test(error.message)) {
    return new SlackDeliveryError(operation, 'rate-limited', { status: 429 });
  }
  return new SlackDeliveryError(operation, 'unavailable');
}

/** The SDK's own lines go to our logger at debug level; it redacts tokens from what it logs. */
function sdkLogger(logger: Logger): NonNullable<WebClientOptions['logger']> {
  let level = LogLevel.WARN;
  const forward = (...msg: unknown[]) => logger.debug('slack sdk', { detail: msg.map(String).join(' ') });
  return {
    debug: () => {},
    info: () => {},
    warn: forward,
    error: forward,
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
