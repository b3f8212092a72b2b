import {
  BatchGetSecretValueCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  SecretsManagerClient,
  type SecretValueEntry,
} from '@aws-sdk/client-secrets-manager';
import type { Clock } from '../ports.js';
import { sanitizeAwsMessage } from '../secrets/aws-failure.js';
import { targetKey } from '../secrets/secret-fetcher.js';
import {
  type AwsTarget,
  type FetchedSecret,
  roleChain,
  SecretPayload,
  type SecretsManagerApi,
  SecretsManagerError,
} from '../secrets/secrets-manager-api.js';
import { assumeRoleCredentials, type CredentialSource } from './credentials.js';
import { type AwsHttpOptions, awsRequestHandler } from './http-handler.js';

export interface SecretsManagerAdapterOptions {
  /** `SECRETS_MANAGER_ENDPOINT`: sent to every client, whatever its region. */
  readonly endpoint?: string;
  /** `STS_ENDPOINT`, for role assumption. */
  readonly stsEndpoint?: string;
  /** The orchestrator's own identity; absent means the SDK's default chain. */
  readonly credentials?: CredentialSource;
  readonly clock?: Clock;
  readonly maxAttempts?: number;
  /** Timeouts of every Secrets Manager and STS call. */
  readonly http?: AwsHttpOptions;
  /** Longest one AssumeRole may take, retries included (default 8 s). */
  readonly assumeTimeoutMs?: number;
}

const THROTTLING = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

/** The `SecretsManagerApi` over the AWS SDK: one client per (region, role chain), created on first use. */
export function createSecretsManagerApi(
  options: SecretsManagerAdapterOptions = {},
): SecretsManagerApi & { destroy(): void } {
  const clients = new Map<string, SecretsManagerClient>();
  // One session per (parent chain, role, region, AssumeRole options): chains that share a first hop (one
  // IRSA role behind several store roles) assume it once, and it lives until shortly before it expires.
  const sessions = new Map<string, ReturnType<typeof assumeRoleCredentials>>();

  const credentialsFor = (target: AwsTarget): CredentialSource | undefined => {
    let credentials: CredentialSource | undefined = options.credentials;
    const roles = roleChain(target);
    let chain = '';
    roles.forEach((roleArn, i) => {
      const last = i === roles.length - 1 && roleArn === target.role;
      const extras = last
        ? {
            ...(target.externalId ? { externalId: target.externalId } : {}),
            ...(target.sessionTags ? { sessionTags: target.sessionTags } : {}),
            ...(target.transitiveTagKeys ? { transitiveTagKeys: target.transitiveTagKeys } : {}),
          }
        : {};
      chain = `${chain}>${roleArn}@${target.region}#${JSON.stringify(extras)}`;
      let assumed = sessions.get(chain);
      if (assumed === undefined) {
        assumed = assumeRoleCredentials({
          parent: credentials,
          roleArn,
          region: target.region,
          ...extras,
          ...(options.stsEndpoint ? { stsEndpoint: options.stsEndpoint } : {}),
          ...(options.clock ? { clock: options.clock } : {}),
          ...(options.http ? { http: options.http } : {}),
          ...(options.assumeTimeoutMs ? { timeoutMs: options.assumeTimeoutMs } : {}),
        });
        sessions.set(chain, assumed);
      }
      credentials = assumed;
    });
    return credentials;
  };

  const clientFor = (target: AwsTarget): SecretsManagerClient => {
    const key = targetKey(target);
    const existing = clients.get(key);
    if (existing) return existing;
    const credentials = credentialsFor(target);
    const client = new SecretsManagerClient({
      region: target.region,
      requestHandler: awsRequestHandler(options.http),
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    });
    clients.set(key, client);
    return client;
  };

  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw toSecretsManagerError(error);
    }
  };

  return {
    getSecretValue: (input) =>
      call(async () => {
        const out = await clientFor(input).send(
          new GetSecretValueCommand({
            SecretId: input.secretId,
            ...(input.versionId ? { VersionId: input.versionId } : {}),
            ...(input.versionStage ? { VersionStage: input.versionStage } : {}),
          }),
        );
        return fetched(out);
      }),
    batchGetSecretValue: (input) =>
      call(async () => {
        const request =
          'secretIds' in input
            ? { SecretIdList: [...input.secretIds] }
            : {
                Filters: input.filters.map((f) => ({ Key: f.key, Values: [...f.values] })),
                MaxResults: 20,
                ...(input.nextToken ? { NextToken: input.nextToken } : {}),
              };
        const out = await clientFor(input).send(new BatchGetSecretValueCommand(request));
        return {
          secrets: (out.SecretValues ?? []).map(fetched),
          errors: (out.Errors ?? []).map((e) => ({
            secretId: e.SecretId ?? '',
            code: e.ErrorCode ?? 'Error',
            message: sanitizeAwsMessage(e.Message ?? ''),
          })),
          ...(out.NextToken ? { nextToken: out.NextToken } : {}),
        };
      }),
    listSecrets: (input) =>
      call(async () => {
        const out = await clientFor(input).send(
          new ListSecretsCommand({
            Filters: input.filters.map((f) => ({ Key: f.key, Values: [...f.values] })),
            MaxResults: 100,
            ...(input.nextToken ? { NextToken: input.nextToken } : {}),
          }),
        );
        return {
          secrets: (out.SecretList ?? []).flatMap((s) =>
            s.Name ? [{ name: s.Name, ...(s.ARN ? { arn: s.ARN } : {}) }] : [],
          ),
          ...(out.NextToken ? { nextToken: out.NextToken } : {}),
        };
      }),
    describeSecret: (input) =>
      call(async () => {
        const out = await clientFor(input).send(new DescribeSecretCommand({ SecretId: input.secretId }));
        const tags: Record<string, string> = {};
        for (const tag of out.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
        return { ...(out.Name ? { name: out.Name } : {}), ...(out.ARN ? { arn: out.ARN } : {}), tags };
      }),
    probeIdentity: async (target) => {
      const credentials = credentialsFor(target);
      if (typeof credentials === 'function') await credentials();
    },
    destroy: () => {
      for (const client of clients.values()) client.destroy();
      for (const sts of sessions.values()) sts.destroy();
      sessions.clear();
      clients.clear();
    },
  };
}

function fetched(
  out: Pick<SecretValueEntry, 'Name' | 'ARN' | 'VersionId' | 'SecretString' | 'SecretBinary'>,
): FetchedSecret {
  return {
    ...(out.Name ? { name: out.Name } : {}),
    ...(out.ARN ? { arn: out.ARN } : {}),
    ...(out.VersionId ? { versionId: out.VersionId } : {}),
    payload: new SecretPayload({ text: out.SecretString, binary: out.SecretBinary }),
  };
}

export function toSecretsManagerError(error: unknown): SecretsManagerError {
  if (error instanceof SecretsManagerError) return error;
  const e = error as {
    name?: string;
    message?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  const code = typeof e?.name === 'string' ? e.name : 'Error';
  const status = e?.$metadata?.httpStatusCode;
  const retryable =
    e?.$retryable !== undefined ||
    THROTTLING.has(code) ||
    (status !== undefined && status >= 500) ||
    status === undefined;
  return new SecretsManagerError(
    code,
    sanitizeAwsMessage(typeof e?.message === 'string' ? e.message : String(error)),
    {
      retryable,
      ...(status === undefined ? {} : { upstreamStatus: status }),
    },
  );
}
