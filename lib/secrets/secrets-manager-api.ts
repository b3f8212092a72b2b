import { inspect } from 'node:util';
import { UpstreamError } from '../errors.js';

/**
 * Whose identity and which region a call uses: the orchestrator's own, or a chain of roles assumed from it
 * (`sourceRole`, then `additionalRoles`, then `role`), each AssumeRole sent to STS in `region`.
 */
export interface AwsTarget {
  readonly region: string;
  /** Role assumed first, from the orchestrator's own identity: the store's ServiceAccount IRSA role, or the cluster's `preflightRoleArn`. */
  readonly sourceRole?: string;
  /** Role to assume last (a store's `role`). */
  readonly role?: string;
  /** Roles assumed in order before `role` (a store's `additionalRoles`). */
  readonly additionalRoles?: readonly string[];
  readonly externalId?: string;
  /** Sent with the AssumeRole of `role` (ESO `sessionTags`, `transitiveTagKeys`). */
  readonly sessionTags?: readonly { readonly key: string; readonly value: string }[];
  readonly transitiveTagKeys?: readonly string[];
}

/** The chain of roles a target assumes, in order. */
export function roleChain(target: AwsTarget): string[] {
  return [
    ...(target.sourceRole ? [target.sourceRole] : []),
    ...(target.additionalRoles ?? []),
    ...(target.role ? [target.role] : []),
  ];
}

export interface SecretFilter {
  readonly key:
    | 'name'
    | 'tag-key'
    | 'tag-value'
    | 'description'
    | 'primary-region'
    | 'owning-service'
    | 'all';
  readonly values: readonly string[];
}

/**
 * A secret's value. It stays in private fields: JSON, `inspect` and string conversion show nothing,
 * so a payload that strays into a log line or a stored item cannot leak.
 */
export class SecretPayload {
  readonly #text: string | undefined;
  readonly #binary: Uint8Array | undefined;

  constructor(parts: { text?: string | undefined; binary?: Uint8Array | undefined }) {
    this.#text = parts.text;
    this.#binary = parts.binary;
  }

  /** What ESO's `GetSecret` returns without a property: the string wins over the binary. */
  plain(): string | undefined {
    if (this.#text !== undefined) return this.#text;
    return this.#binary === undefined ? undefined : Buffer.from(this.#binary).toString('utf8');
  }

  /** What ESO reads a property from: the binary (as UTF-8) wins over the string. */
  forProperty(): string {
    if (this.#binary !== undefined) return Buffer.from(this.#binary).toString('utf8');
    return this.#text ?? '';
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'SecretPayload [redacted]';
  }
}

export interface FetchedSecret {
  readonly name?: string;
  readonly arn?: string;
  readonly versionId?: string;
  readonly payload: SecretPayload;
}

export interface BatchError {
  readonly secretId: string;
  readonly code: string;
  readonly message: string;
}

export interface ListedSecret {
  readonly name: string;
  readonly arn?: string;
}

/** The Secrets Manager calls the preflight makes (read-only). Errors are `SecretsManagerError`. */
export interface SecretsManagerApi {
  getSecretValue(
    input: AwsTarget & {
      readonly secretId: string;
      readonly versionId?: string;
      readonly versionStage?: string;
    },
  ): Promise<FetchedSecret>;
  /** Up to 20 `secretIds`, or `filters` (paged by `nextToken`); per-secret failures come back in `errors`. */
  batchGetSecretValue(
    input: AwsTarget &
      (
        | { readonly secretIds: readonly string[] }
        | { readonly filters: readonly SecretFilter[]; readonly nextToken?: string }
      ),
  ): Promise<{ secrets: FetchedSecret[]; errors: BatchError[]; nextToken?: string }>;
  listSecrets(
    input: AwsTarget & { readonly filters: readonly SecretFilter[]; readonly nextToken?: string },
  ): Promise<{ secrets: ListedSecret[]; nextToken?: string }>;
  /** Tags only (ESO `metadataPolicy: Fetch`). */
  describeSecret(
    input: AwsTarget & { readonly secretId: string },
  ): Promise<{ name?: string; arn?: string; tags: Readonly<Record<string, string>> }>;
  /** Takes on the target's identity (every AssumeRole of its chain) without reading a secret. */
  probeIdentity?(target: AwsTarget): Promise<void>;
}

/** A failed Secrets Manager (or STS) call; `code` is the AWS error name, the message is sanitized. */
export class SecretsManagerError extends UpstreamError {
  readonly awsCode: string;

  constructor(
    awsCode: string,
    message: string,
    options: { retryable?: boolean; upstreamStatus?: number } = {},
  ) {
    super(message, {
      retryable: options.retryable ?? false,
      code: 'secrets-manager',
      ...(options.upstreamStatus === undefined ? {} : { upstreamStatus: options.upstreamStatus }),
    });
    this.awsCode = awsCode;
  }
}
