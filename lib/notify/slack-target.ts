import type { SlackConfig } from '../config.js';
import type { Logger, SecretReader } from '../ports.js';
import type { RetryBudget } from './bounded-retry.js';
import type { SlackTarget } from './rollout-notifier.js';
import { createSlackApi } from './slack-client.js';
import { lazySlackApi, lazySlackWebhook, onCredential, slackCredential } from './slack-secret.js';
import { createSlackWebhook } from './slack-webhook.js';
import type { SlackMessage } from './types.js';

export interface SlackTargetOptions {
  readonly logger: Logger;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryBudget>;
  /** Reads `SLACK_SECRET_ARN` (cached with a TTL); required in `secret` mode. */
  readonly secrets?: SecretReader;
}

/** Builds the Slack adapter the settings ask for (once per cold start). */
export function createSlackTarget(config: SlackConfig, options: SlackTargetOptions): SlackTarget {
  const transport = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  };
  if (config.mode === 'bot') {
    const api = createSlackApi({
      token: config.token,
      logger: options.logger,
      ...(config.apiUrl === undefined ? {} : { apiUrl: config.apiUrl }),
      ...transport,
    });
    return { mode: 'bot', api, channel: config.channel };
  }
  if (config.mode === 'secret') {
    if (options.secrets === undefined) throw new Error('a secret reader is required for SLACK_SECRET_ARN');
    const { secretArn, channel, apiUrl } = config;
    if (channel !== undefined) {
      const token = slackCredential(options.secrets, secretArn, 'botToken');
      const api = onCredential(token, (value) =>
        createSlackApi({
          token: value,
          logger: options.logger,
          ...(apiUrl === undefined ? {} : { apiUrl }),
          ...transport,
        }),
      );
      return { mode: 'bot', api: lazySlackApi(api), channel };
    }
    const url = slackCredential(options.secrets, secretArn, 'webhookUrl');
    const webhook = onCredential(url, (value) => createSlackWebhook({ url: value, ...transport }));
    return { mode: 'webhook', webhook: lazySlackWebhook(webhook) };
  }
  if (config.mode === 'webhook') {
    return { mode: 'webhook', webhook: createSlackWebhook({ url: config.webhookUrl, ...transport }) };
  }
  return { mode: 'off' };
}

/**
 * One message to wherever Slack notices go, for notices that are not a rollout's (the reconcile
 * digest of new and resolved findings). Throws SlackDeliveryError; does nothing when Slack is off.
 */
export async function postToSlack(target: SlackTarget, message: SlackMessage): Promise<void> {
  if (target.mode === 'bot') await target.api.postMessage({ channel: target.channel, ...message });
  else if (target.mode === 'webhook') await target.webhook.send(message);
}
