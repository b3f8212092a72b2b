import type { Clock } from '../ports.js';
import { type AwsCredentialsProvider, createEksToken, EKS_TOKEN_VALIDITY_MS } from './eks-token.js';
import type { TokenSource } from './token-source.js';

/**
 * Reuse a token for 10 of its 15 minutes: the 5 left cover clock skew between Lambda and the cluster and
 * a request (or watch) still in flight when the token is picked. Never past the credentials' own expiry.
 */
export const EKS_TOKEN_REUSE_MS = 10 * 60_000;
const CREDENTIALS_MARGIN_MS = 60_000;

export interface EksTokenSourceOptions {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialsProvider;
  readonly clock: Clock;
  readonly reuseMs?: number;
}

/** Generates EKS tokens on demand, one at a time, and caches each until it is due for renewal. */
export function createEksTokenSource(options: EksTokenSourceOptions): TokenSource {
  const reuseMs = Math.min(options.reuseMs ?? EKS_TOKEN_REUSE_MS, EKS_TOKEN_VALIDITY_MS - 60_000);
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  const generate = async (): Promise<string> => {
    const credentials = await options.credentials();
    const now = options.clock.now();
    const token = await createEksToken({
      clusterName: options.clusterName,
      region: options.region,
      credentials,
      now,
    });
    const credentialsEnd = credentials.expiration?.getTime() ?? Number.POSITIVE_INFINITY;
    cached = { token, renewAt: Math.min(now.getTime() + reuseMs, credentialsEnd - CREDENTIALS_MARGIN_MS) };
    return token;
  };

  return {
    token() {
      if (cached !== undefined && options.clock.now().getTime() < cached.renewAt) {
        return Promise.resolve(cached.token);
      }
      pending ??= generate().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
