import {
  type LocalSecretsManager,
  type LocalSecretsManagerOptions,
  startLocalSecretsManager,
} from '../../infra/local/secrets-manager.js';
import { createSecretsManagerApi } from '../../lib/aws/secrets-manager.js';
import type { SecretsManagerApi } from '../../lib/secrets/secrets-manager-api.js';

export interface TestSecretsManager {
  readonly double: LocalSecretsManager;
  /** The real adapter (AWS SDK clients) pointed at the double, with fixed base credentials. */
  readonly api: SecretsManagerApi;
  close(): Promise<void>;
}

export const BASE_ACCESS_KEY = 'AKIALOCALBASE0000000';

/** The Secrets Manager + STS double on loopback, and the real SDK adapter talking to it. */
export async function startTestSecretsManager(
  options: LocalSecretsManagerOptions & { readonly assumeTimeoutMs?: number } = {},
): Promise<TestSecretsManager> {
  const double = await startLocalSecretsManager(options);
  const api = createSecretsManagerApi({
    endpoint: double.endpoint,
    stsEndpoint: double.endpoint,
    credentials: { accessKeyId: BASE_ACCESS_KEY, secretAccessKey: 'local' },
    maxAttempts: 1,
    ...(options.assumeTimeoutMs === undefined ? {} : { assumeTimeoutMs: options.assumeTimeoutMs }),
  });
  return {
    double,
    api,
    close: async () => {
      api.destroy();
      await double.close();
    },
  };
}
