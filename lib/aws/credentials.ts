import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { type Clock, systemClock } from '../ports.js';
import { sanitizeAwsMessage } from '../secrets/aws-failure.js';
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

/**
 * Credentials of `roleArn`, assumed with `parent` through STS AssumeRole, cached until five minutes
 * before they expire; concurrent callers share one STS call.
 */
export function assumeRoleCredentials(options: {
  parent: CredentialSource | undefined;
  roleArn: string;
  externalId?: string;
  region: string;
  stsEndpoint?: string;
  sessionName?: string;
  clock?: Clock;
  http?: AwsHttpOptions;
}): (() => Promise<AwsCredentials>) & { destroy(): void } {
  const clock = options.clock ?? systemClock;
  const sts = new STSClient({
    region: options.region,
    requestHandler: awsRequestHandler(options.http),
    ...(options.stsEndpoint ? { endpoint: options.stsEndpoint } : {}),
    ...(options.parent ? { credentials: options.parent } : {}),
  });
  let cached: { credentials: AwsCredentials; refreshAt: number } | undefined;
  let inFlight: Promise<AwsCredentials> | undefined;

  const assume = async (): Promise<AwsCredentials> => {
    try {
      const { Credentials: c } = await sts.send(
        new AssumeRoleCommand({
          RoleArn: options.roleArn,
          RoleSessionName: options.sessionName ?? 'gitops-sync-preflight',
          ...(options.externalId ? { ExternalId: options.externalId } : {}),
        }),
      );
      if (!c?.AccessKeyId || !c.SecretAccessKey) {
        throw new SecretsManagerError(
          'AssumeRoleError',
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
      const name = error instanceof Error ? error.name : 'AssumeRoleError';
      const message = error instanceof Error ? error.message : String(error);
      throw new SecretsManagerError(name, `AssumeRole ${options.roleArn}: ${sanitizeAwsMessage(message)}`);
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
