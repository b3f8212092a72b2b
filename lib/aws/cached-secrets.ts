import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { UpstreamError } from '../errors.js';
import type { SecretReader } from '../ports.js';

export interface CachedSecretsOptions {
  readonly region: string;
  /** `SECRETS_MANAGER_ENDPOINT` (tests, the local double). */
  readonly endpoint?: string;
  /** How long a value is trusted, so a rotation is picked up without a cold start. */
  readonly ttlSeconds?: number;
  readonly connectionTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
}

/**
 * The orchestrator's own secrets (webhook secrets, the Slack token) through Powertools Parameters: a
 * per-container cache with a TTL, one small client with connection and request timeouts that really end
 * a hung call (`throwOnRequestTimeout`), and no STS: these secrets are read with the Lambda's own role.
 * Failures name the secret, never a value, and are not cached.
 */
export function createCachedSecretReader(options: CachedSecretsOptions): SecretReader {
  const client = new SecretsManagerClient({
    region: options.region,
    maxAttempts: 2,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: options.connectionTimeoutMs ?? 2000,
      requestTimeout: options.requestTimeoutMs ?? 4000,
      throwOnRequestTimeout: true,
    }),
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
  });
  const provider = new SecretsProvider({ awsSdkV3Client: client });
  const maxAge = options.ttlSeconds ?? 300;
  return {
    async getSecretString(secretId) {
      let value: string | Uint8Array | undefined;
      try {
        value = await provider.get(secretId, { maxAge });
      } catch (error) {
        const reason = (error as { cause?: { name?: string } }).cause?.name ?? 'error';
        throw new UpstreamError(`reading secret ${secretId}: ${reason}`, { retryable: true, cause: error });
      }
      if (typeof value !== 'string') {
        throw new UpstreamError(`secret ${secretId} has no string value`, { retryable: false });
      }
      return value;
    },
  };
}
