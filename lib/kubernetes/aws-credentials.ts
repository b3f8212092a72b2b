import { fromNodeProviderChain, fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { type AwsHttpOptions, awsRequestHandler } from '../aws/http-handler.js';
import type { AwsCredentials, AwsCredentialsProvider } from './eks-token.js';

const RENEW_BEFORE_MS = 5 * 60_000;

export interface AwsCredentialsOptions {
  /** STS endpoint override for AssumeRole (tests, VPC endpoints). */
  readonly stsEndpoint?: string;
  readonly now?: () => number;
  /** Timeouts of the STS calls. */
  readonly http?: AwsHttpOptions;
}

/**
 * The Lambda's own identity (the Node provider chain), or `roleArn` assumed from it, one memoised provider
 * per (role, region), renewed five minutes before the credentials expire.
 */
export function createAwsCredentials(
  options: AwsCredentialsOptions = {},
): (request: { roleArn?: string; region: string }) => AwsCredentialsProvider {
  const now = options.now ?? Date.now;
  const providers = new Map<string, AwsCredentialsProvider>();
  const base = memoize(fromNodeProviderChain(), now);
  return ({ roleArn, region }) => {
    if (roleArn === undefined) return base;
    const key = `${roleArn}@${region}`;
    let provider = providers.get(key);
    if (provider === undefined) {
      provider = memoize(
        fromTemporaryCredentials({
          params: { RoleArn: roleArn, RoleSessionName: 'gitops-sync' },
          masterCredentials: base,
          clientConfig: {
            region,
            requestHandler: awsRequestHandler(options.http),
            ...(options.stsEndpoint === undefined ? {} : { endpoint: options.stsEndpoint }),
          },
        }),
        now,
      );
      providers.set(key, provider);
    }
    return provider;
  };
}

function memoize(provider: () => Promise<AwsCredentials>, now: () => number): AwsCredentialsProvider {
  let cached: AwsCredentials | undefined;
  let pending: Promise<AwsCredentials> | undefined;
  return () => {
    const expiry = cached?.expiration?.getTime();
    if (cached !== undefined && (expiry === undefined || expiry - RENEW_BEFORE_MS > now())) {
      return Promise.resolve(cached);
    }
    pending ??= provider()
      .then((credentials) => {
        cached = credentials;
        return credentials;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
