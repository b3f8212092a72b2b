import type { KnownBlock } from '@slack/web-api';
import {
  type FetchFunction,
  IncomingWebhook,
  IncomingWebhookHTTPError,
  type IncomingWebhookSendArguments,
} from '@slack/webhook';
import { DEFAULT_RETRY_BUDGET, type RetryBudget, withBoundedRetry } from './bounded-retry.js';
import type { SlackWebhook } from './slack-client.js';
import { SlackDeliveryError, slackErrorCode } from './slack-errors.js';
import type { SlackMessage } from './types.js';

export interface SlackWebhookOptions {
  /** `SLACK_WEBHOOK_URL`: a secret (its path is the credential), so it never appears in errors or logs. */
  readonly url: string;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryBudget>;
}

const OPERATION = 'incoming webhook';

/**
 * `IncomingWebhook` fails a 429 at once and keeps no headers on its error, so each send goes through a
 * fetch that remembers the answer's Retry-After for the bounded retry loop.
 */
export function createSlackWebhook(options: SlackWebhookOptions): SlackWebhook {
  const budget: RetryBudget = { ...DEFAULT_RETRY_BUDGET, ...options.retry };
  return {
    send: async (message) => {
      let retryAfter: string | null = null;
      const fetchFn: FetchFunction = async (url, init) => {
        // The URL is the credential: a redirect is refused (a 3xx fails as `rejected`), never followed.
        const response = await globalThis.fetch(url, { ...init, redirect: 'manual' });
        retryAfter = response.headers.get('retry-after');
        return response;
      };
      const webhook = new IncomingWebhook(options.url, {
        fetch: fetchFn,
        timeout: options.timeoutMs ?? 4000,
        retryConfig: { retries: 0 },
      });
      await withBoundedRetry(
        () => webhook.send(payload(message)),
        (error) => classify(error, retryAfter),
        budget,
      );
    },
  };
}

function payload(message: SlackMessage): IncomingWebhookSendArguments {
  return {
    text: message.text,
    blocks: message.blocks.map((block) => structuredClone(block) as KnownBlock),
    unfurl_links: false,
    unfurl_media: false,
  };
}

function classify(error: unknown, retryAfter: string | null): SlackDeliveryError {
  if (!(error instanceof IncomingWebhookHTTPError)) return new SlackDeliveryError(OPERATION, 'unavailable');
  const status = error.statusCode;
  if (status === 429) {
    const seconds = retryAfter === null ? Number.NaN : Number.parseInt(retryAfter, 10);
    return new SlackDeliveryError(OPERATION, 'rate-limited', {
      status,
      ...(Number.isFinite(seconds) && seconds >= 0 ? { retryAfterSeconds: seconds } : {}),
    });
  }
  const slackError = slackErrorCode(error.body);
  return new SlackDeliveryError(OPERATION, status >= 500 ? 'unavailable' : 'rejected', {
    status,
    ...(slackError === undefined ? {} : { slackError }),
  });
}
