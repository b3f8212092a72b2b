import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { type Clock, systemClock } from '../ports.js';
import { ROLE_NOT_ASSUMED, sanitizeAwsMessage } from '../secrets/aws-failure.js';
import { SecretsManagerError } from '../secrets/secrets-manager-api.js';
import { type AwsHttpOptions, awsRequestHandler } from './http-handler.js';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** Fixed credentials or a provider; `undefined` means the SDK's default chain (the Lambda's role). */
export type CredentialSource = AwsCredentials | (() => Promise<AwsCredentials>);

const REFRESH_MARGIN_MS = 5 * 60 * 1000;
/** Longest one role assumption may take, retries included (a slow STS leaves the read `unchecked`). */
export const DEFAULT_ASSUME_TIMEOUT_MS = 8_000;

/**
 * Credentials of `roleArn`, assumed with `parent` through STS AssumeRole (in `region`), cached until five
 * minutes before they expire; concurrent callers share one STS call. Every failure (denied, throttled
 * past its two attempts, slower than `timeoutMs`) is a `RoleNotAssumed` error naming the role.
 */
export function assumeRoleCredentials(options: {
  parent: CredentialSource | undefined;
  roleArn: string;
  externalId?: string;
  region: string;
  stsEndpoint?: string;
  sessionName?: string;
  sessionTags?: readonly { readonly key: string; readonly value: string }[];
  transitiveTagKeys?: readonly string[];
  timeoutMs?: number;
  clock?: Clock;
  http?: AwsHttpOptions;
}): (() => Promise<AwsCredentials>) & { destroy(): void } {
  const clock = options.clock ?? systemClock;
  const sts = new STSClient({
    region: options.region,
    requestHandler: awsRequestHandler(options.http),
    ...(options.stsEndpoint ? { endpoint: options.stsEndpoint } : {}),
    ...(options.parent ? { credentials: options.parent } : {}),
    maxAttempts: 2,
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_ASSUME_TIMEOUT_MS;
  let cached: { credentials: AwsCredentials; refreshAt: number } | undefined;
  let inFlight: Promise<AwsCredentials> | undefined;

  const tags = options.sessionTags ?? [];
  const assume = async (): Promise<AwsCredentials> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const { Credentials: c } = await sts.send(
        new AssumeRoleCommand({
          RoleArn: options.roleArn,
          RoleSessionName: options.sessionName ?? 'gitops-sync-preflight',
          ...(options.externalId ? { ExternalId: options.externalId } : {}),
          ...(tags.length > 0 ? { Tags: tags.map((t) => ({ Key: t.key, Value: t.value })) } : {}),
          ...(tags.length > 0 && options.transitiveTagKeys?.length
            ? { TransitiveTagKeys: [...options.transitiveTagKeys] }
            : {}),
        }),
        { abortSignal: abort.signal },
      );
      if (!c?.AccessKeyId || !c.SecretAccessKey) {
        throw new SecretsManagerError(
          ROLE_NOT_ASSUMED,
          `AssumeRole ${options.roleArn} returned no credentials`,
        );
      }
      const expiration = c.Expiration ?? new Date(clock.now().getTime() + 15 * 60 * 1000);
      const credentials = {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
        expiration,
      };
      cached = { credentials, refreshAt: expiration.getTime() - REFRESH_MARGIN_MS };
      return credentials;
    } catch (error) {
      if (error instanceof SecretsManagerError) throw error;
      const name = abort.signal.aborted ? 'Timeout' : error instanceof Error ? error.name : 'Error';
      const message = abort.signal.aborted
        ? `no answer within ${timeoutMs} ms`
        : sanitizeAwsMessage(error instanceof Error ? error.message : String(error));
      throw new SecretsManagerError(
        ROLE_NOT_ASSUMED,
        `AssumeRole ${options.roleArn} failed (${name}): ${message}`,
      );
    } finally {
      clearTimeout(timer);
    }
  };

  const provider = async (): Promise<AwsCredentials> => {
    if (cached && clock.now().getTime() < cached.refreshAt) return cached.credentials;
    inFlight ??= assume().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  return Object.assign(provider, { destroy: () => sts.destroy() });
}
