import type { WebhookSecretsConfig } from '../config.js';
import { AppError, ConfigError, UpstreamError } from '../errors.js';
import { type Clock, type SecretReader, systemClock } from '../ports.js';
import { isRecord } from './payload-fields.js';
import { GIT_PROVIDERS, type GitProvider } from './push-event.js';

/**
 * Every secret, token or password currently accepted, per provider route name; more than one while
 * rotating. A provider without an entry (or an empty list) has nothing configured: its deliveries get 401.
 */
export type WebhookSecrets = { readonly github: readonly string[]; readonly gitlab: readonly string[] } & {
  readonly [P in Exclude<GitProvider, 'github' | 'gitlab'>]?: readonly string[];
};

/** The accepted secrets of one provider (empty when none is configured). */
export function secretsFor(secrets: WebhookSecrets, provider: GitProvider): readonly string[] {
  return secrets[provider] ?? [];
}

export type WebhookSecretSource = () => Promise<WebhookSecrets>;

export interface SecretSourceOptions {
  readonly clock?: Clock;
  /** How long a Secrets Manager read is trusted, so a rotation is picked up without a cold start. */
  readonly ttlSeconds?: number;
}

export const WEBHOOK_SECRET_TTL_SECONDS = 300;

/**
 * Direct secrets from config (`GITHUB_WEBHOOK_SECRET`, `GITLAB_WEBHOOK_TOKEN`, `BITBUCKET_WEBHOOK_SECRET`…)
 * merged with the Secrets Manager JSON `{"github": "..." | [...], "gitlab": ..., "bitbucket-server": ...}`
 * (one field per route name) when `WEBHOOK_SECRET_ARN` is set.
 * A failed read is our failure (an error with no value in it), never an empty list.
 */
export function webhookSecretSource(
  config: { readonly webhookSecrets: WebhookSecretsConfig },
  secretReader?: SecretReader,
  options: SecretSourceOptions = {},
): WebhookSecretSource {
  const direct = config.webhookSecrets;
  const secretArn = direct.secretArn;
  if (secretArn === undefined) {
    const fixed = merge(direct, { github: [], gitlab: [] });
    return async () => fixed;
  }
  if (secretReader === undefined)
    throw new ConfigError('WEBHOOK_SECRET_ARN', 'is set but no secret reader was given');
  const reader = secretReader;
  const arn: string = secretArn;
  const clock = options.clock ?? systemClock;
  const ttlMs = (options.ttlSeconds ?? WEBHOOK_SECRET_TTL_SECONDS) * 1000;
  let cached: { value: WebhookSecrets; expiresAt: number } | undefined;
  let loading: Promise<WebhookSecrets> | undefined;

  async function load(): Promise<WebhookSecrets> {
    let raw: string;
    try {
      raw = await reader.getSecretString(arn);
    } catch (error) {
      throw new UpstreamError('could not read the webhook secrets from Secrets Manager', {
        retryable: true,
        cause: error,
      });
    }
    const value = merge(direct, parseStoredSecrets(raw));
    cached = { value, expiresAt: clock.now().getTime() + ttlMs };
    return value;
  }

  return async () => {
    if (cached !== undefined && clock.now().getTime() < cached.expiresAt) return cached.value;
    // Concurrent requests share one read.
    loading ??= load().finally(() => {
      loading = undefined;
    });
    return loading;
  };
}

/** The stored JSON, one field per route name; the error names the field at fault, never a value. */
export function parseStoredSecrets(raw: string): WebhookSecrets {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new AppError('the webhook secret is not JSON; expected {"github": ..., "gitlab": ...}', {
      code: 'webhook-secret-format',
    });
  }
  if (!isRecord(parsed)) {
    throw new AppError('the webhook secret must be a JSON object {"github": ..., "gitlab": ...}', {
      code: 'webhook-secret-format',
    });
  }
  const stored: Record<string, string[]> = {};
  for (const provider of GIT_PROVIDERS) stored[provider] = secretList(parsed[provider], provider);
  return stored as unknown as WebhookSecrets;
}

function secretList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
    throw new AppError(`the webhook secret field "${field}" must be a string or a list of strings`, {
      code: 'webhook-secret-format',
    });
  }
  return list.map((item) => item.trim()).filter((item) => item !== '');
}

function merge(first: WebhookSecrets, second: WebhookSecrets): WebhookSecrets {
  const merged: Record<string, readonly string[]> = {};
  for (const provider of GIT_PROVIDERS) {
    merged[provider] = Object.freeze([
      ...new Set([...secretsFor(first, provider), ...secretsFor(second, provider)]),
    ]);
  }
  return Object.freeze(merged) as unknown as WebhookSecrets;
}
