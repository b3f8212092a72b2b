import { UpstreamError } from '../errors.js';
import { type Clock, type SecretReader, systemClock } from '../ports.js';
import { type SecretsManagerApi, SecretsManagerError } from '../secrets/secrets-manager-api.js';

/**
 * The orchestrator's own secrets (webhook secrets, cluster and repository tokens), read with its own
 * identity and kept for `ttlSeconds` so a warm Lambda does not call Secrets Manager per request.
 * The region comes from an ARN, else `region`. Failures are not cached.
 */
export function createSecretReader(options: {
  api: SecretsManagerApi;
  region: string;
  ttlSeconds?: number;
  clock?: Clock;
}): SecretReader & { clear(): void } {
  const clock = options.clock ?? systemClock;
  const ttlMs = (options.ttlSeconds ?? 300) * 1000;
  const cache = new Map<string, { expiresAt: number; value: Promise<string> }>();

  const read = async (secretId: string): Promise<string> => {
    const region = /^arn:[^:]+:secretsmanager:([^:]+):/.exec(secretId)?.[1] ?? options.region;
    try {
      const { payload } = await options.api.getSecretValue({ region, secretId, versionStage: 'AWSCURRENT' });
      const value = payload.plain();
      if (value === undefined)
        throw new UpstreamError(`secret ${secretId} has no value`, { retryable: false });
      return value;
    } catch (error) {
      if (!(error instanceof SecretsManagerError)) throw error;
      throw new UpstreamError(`reading secret ${secretId}: ${error.awsCode}: ${error.message}`, {
        retryable: error.retryable,
        cause: error,
      });
    }
  };

  return {
    getSecretString(secretId: string): Promise<string> {
      const now = clock.now().getTime();
      const hit = cache.get(secretId);
      if (hit && now < hit.expiresAt) return hit.value;
      const value = read(secretId);
      cache.set(secretId, { expiresAt: now + ttlMs, value });
      value.catch(() => {
        if (cache.get(secretId)?.value === value) cache.delete(secretId);
      });
      return value;
    },
    clear: () => cache.clear(),
  };
}
