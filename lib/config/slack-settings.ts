import { ConfigError } from '../errors.js';
import { arn, type Env, optional, text, url } from './env-read.js';

export type SlackConfig =
  | { readonly mode: 'bot'; readonly token: string; readonly channel: string; readonly apiUrl?: string }
  | { readonly mode: 'webhook'; readonly webhookUrl: string }
  /**
   * `SLACK_SECRET_ARN`: the bot token (with `channel`) or the webhook URL (without) read from Secrets
   * Manager, `{"botToken": "xoxb-...", "webhookUrl": "https://hooks.slack.com/..."}`, so no Slack credential
   * sits in an environment variable or the template.
   */
  | {
      readonly mode: 'secret';
      readonly secretArn: string;
      readonly channel?: string;
      readonly apiUrl?: string;
    }
  | { readonly mode: 'off' };

export function slackConfig(env: Env): SlackConfig {
  const webhookUrl = url(env, 'SLACK_WEBHOOK_URL');
  const token = text(env, 'SLACK_BOT_TOKEN');
  const channel = text(env, 'SLACK_CHANNEL');
  const apiUrl = url(env, 'SLACK_API_URL');
  const secretArn = arn(env, 'SLACK_SECRET_ARN', 'secretsmanager');
  if (secretArn !== undefined) {
    if (token !== undefined || webhookUrl !== undefined) {
      throw new ConfigError('SLACK_SECRET_ARN', 'is exclusive with SLACK_BOT_TOKEN and SLACK_WEBHOOK_URL');
    }
    return { mode: 'secret', secretArn, ...optional('channel', channel), ...optional('apiUrl', apiUrl) };
  }
  if (webhookUrl !== undefined && token !== undefined) {
    throw new ConfigError('SLACK_WEBHOOK_URL', 'and SLACK_BOT_TOKEN are exclusive; set one');
  }
  if (token !== undefined) {
    if (channel === undefined) throw new ConfigError('SLACK_CHANNEL', 'is required with SLACK_BOT_TOKEN');
    return { mode: 'bot', token, channel, ...optional('apiUrl', apiUrl) };
  }
  if (channel !== undefined) throw new ConfigError('SLACK_BOT_TOKEN', 'is required with SLACK_CHANNEL');
  if (webhookUrl !== undefined) return { mode: 'webhook', webhookUrl };
  return { mode: 'off' };
}
