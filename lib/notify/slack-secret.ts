import { ConfigError } from '../errors.js';
import type { SecretReader } from '../ports.js';
import type { SlackApi, SlackWebhook } from './slack-client.js';

/** What `SLACK_SECRET_ARN` holds: `{"botToken": "xoxb-..."}` and/or `{"webhookUrl": "https://hooks..."}`. */
export type SlackCredential = 'botToken' | 'webhookUrl';

/** Reads one field of the Slack secret (through the reader's TTL cache); errors never hold a value. */
export function slackCredential(reader: SecretReader, secretArn: string, field: SlackCredential) {
  return async (): Promise<string> => {
    const raw = await reader.getSecretString(secretArn);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ConfigError('SLACK_SECRET_ARN', `must hold JSON with "${field}"`);
    }
    const value = (parsed as Record<string, unknown> | null)?.[field];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new ConfigError('SLACK_SECRET_ARN', `has no "${field}" string`);
    }
    return value.trim();
  };
}

/**
 * A Slack client rebuilt whenever the credential changes (a rotation picked up by the TTL cache), so the
 * notifier keeps one client per credential and never holds a token it has not read from the secret.
 */
export function onCredential<T extends object>(
  credential: () => Promise<string>,
  build: (value: string) => T,
) {
  let current: { value: string; client: T } | undefined;
  return async (): Promise<T> => {
    const value = await credential();
    if (current?.value !== value) current = { value, client: build(value) };
    return current.client;
  };
}

export function lazySlackApi(client: () => Promise<SlackApi>): SlackApi {
  return {
    postMessage: async (input) => (await client()).postMessage(input),
    updateMessage: async (input) => (await client()).updateMessage(input),
  };
}

export function lazySlackWebhook(client: () => Promise<SlackWebhook>): SlackWebhook {
  return { send: async (message) => (await client()).send(message) };
}
