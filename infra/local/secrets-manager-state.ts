import { createHash } from 'node:crypto';

/** One version of a seeded secret. */
export interface SeedVersion {
  readonly versionId?: string;
  /** Staging labels: `AWSCURRENT`, `AWSPREVIOUS`, `AWSPENDING` or custom. */
  readonly stages: readonly string[];
  readonly string?: string;
  readonly binary?: Uint8Array;
}

export interface SeedSecret {
  readonly name: string;
  readonly description?: string;
  /** Shortcut for a single `AWSCURRENT` version. */
  readonly string?: string;
  readonly binary?: Uint8Array;
  readonly versions?: readonly SeedVersion[];
  readonly tags?: Readonly<Record<string, string>>;
  /** Scheduled for deletion: reads fail with InvalidRequestException; hidden from lists. */
  readonly deletedPending?: boolean;
  /** The caller may not decrypt with the secret's KMS key. */
  readonly kmsDenied?: boolean;
  /** `deny`: nobody may read the value; `roles`: only callers holding one of these assumed roles may. */
  readonly access?: 'deny' | { readonly roles: readonly string[] };
  /** Only callers signing for this region see the secret (absent: every region). */
  readonly region?: string;
}

export interface StoredVersion {
  readonly versionId: string;
  readonly stages: readonly string[];
  readonly string?: string;
  readonly binary?: Uint8Array;
}

export interface StoredSecret extends Omit<SeedSecret, 'versions' | 'string' | 'binary'> {
  readonly arn: string;
  readonly versions: readonly StoredVersion[];
}

export interface Caller {
  readonly accessKeyId?: string;
  /** The role the caller's credentials were issued for by the STS double. */
  readonly role?: string;
  /** The signing region of the request. */
  readonly region?: string;
}

export class DoubleError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export const CREATED_EPOCH_SECONDS = Date.UTC(2026, 0, 1) / 1000;

export function storeSecret(seed: SeedSecret, region: string, accountId: string): StoredSecret {
  const suffix = createHash('sha256').update(seed.name).digest('hex').slice(0, 6);
  const versions: StoredVersion[] = (seed.versions ?? [{ stages: ['AWSCURRENT'], ...pick(seed) }]).map(
    (v, i) => ({
      versionId: v.versionId ?? `${suffix}00-0000-4000-8000-${String(i).padStart(12, '0')}`,
      stages: v.stages,
      ...pick(v),
    }),
  );
  const { versions: _v, string: _s, binary: _b, ...rest } = seed;
  return {
    ...rest,
    arn: `arn:aws:secretsmanager:${seed.region ?? region}:${accountId}:secret:${seed.name}-${suffix}`,
    versions,
  };
}

function pick(v: { string?: string | undefined; binary?: Uint8Array | undefined }) {
  return {
    ...(v.string === undefined ? {} : { string: v.string }),
    ...(v.binary === undefined ? {} : { binary: v.binary }),
  };
}

/** By name, full ARN, or partial ARN (without the six-character suffix). */
export function findSecret(secrets: Iterable<StoredSecret>, secretId: string): StoredSecret | undefined {
  for (const secret of secrets) {
    if (secret.name === secretId || secret.arn === secretId || secret.arn.slice(0, -7) === secretId)
      return secret;
  }
  return undefined;
}

/** What GetSecretValue (and each BatchGetSecretValue entry) answers for this caller. */
export function readValue(
  secret: StoredSecret,
  caller: Caller,
  selector: { versionId?: string; versionStage?: string },
): Record<string, unknown> {
  if (secret.deletedPending) {
    throw new DoubleError(
      'InvalidRequestException',
      "You can't perform this operation on the secret because it was marked for deletion.",
    );
  }
  if (!mayRead(secret, caller)) {
    throw new DoubleError(
      'AccessDeniedException',
      `User: ${caller.role ?? 'arn:aws:iam::000000000000:user/local'} is not authorized to perform: secretsmanager:GetSecretValue on resource: ${secret.name} because no identity-based policy allows the secretsmanager:GetSecretValue action`,
    );
  }
  const stage = selector.versionStage ?? (selector.versionId ? undefined : 'AWSCURRENT');
  const version = selector.versionId
    ? secret.versions.find((v) => v.versionId === selector.versionId)
    : secret.versions.find((v) => stage !== undefined && v.stages.includes(stage));
  if (!version) {
    const what = selector.versionId ? `VersionId: ${selector.versionId}` : `staging label: ${stage}`;
    throw new DoubleError(
      'ResourceNotFoundException',
      `Secrets Manager can't find the specified secret value for ${what}`,
    );
  }
  if (stage !== undefined && !version.stages.includes(stage)) {
    throw new DoubleError(
      'InvalidRequestException',
      'You provided a VersionStage that is not associated to the provided VersionId.',
    );
  }
  if (secret.kmsDenied) throw new DoubleError('AccessDeniedException', 'Access to KMS is not allowed');
  return {
    ARN: secret.arn,
    Name: secret.name,
    VersionId: version.versionId,
    ...(version.string === undefined ? {} : { SecretString: version.string }),
    ...(version.binary === undefined ? {} : { SecretBinary: Buffer.from(version.binary).toString('base64') }),
    VersionStages: version.stages,
    CreatedDate: CREATED_EPOCH_SECONDS,
  };
}

function mayRead(secret: StoredSecret, caller: Caller): boolean {
  if (secret.access === undefined) return true;
  if (secret.access === 'deny') return false;
  return caller.role !== undefined && secret.access.roles.includes(caller.role);
}

export interface Filter {
  readonly Key?: string;
  readonly Values?: readonly string[];
}

const FILTER_VALUE = /^!?[a-zA-Z0-9 :_@/+=.\-!]*$/;

/** ListSecrets/BatchGetSecretValue filters: prefix matches, `!` negates, values OR, filters AND. */
export function matchesFilters(secret: StoredSecret, filters: readonly Filter[]): boolean {
  return filters.every((filter) => {
    const values = filter.Values ?? [];
    if (
      values.length === 0 ||
      values.length > 10 ||
      values.some((v) => v.length > 512 || !FILTER_VALUE.test(v))
    ) {
      throw new DoubleError(
        'ValidationException',
        `1 validation error detected: Value at 'filters.member.values' failed to satisfy constraint`,
      );
    }
    const tags = Object.entries(secret.tags ?? {});
    const candidates: Record<string, { texts: string[]; caseless?: boolean }> = {
      name: { texts: [secret.name] },
      'tag-key': { texts: tags.map(([k]) => k) },
      'tag-value': { texts: tags.map(([, v]) => v) },
      description: { texts: [secret.description ?? ''], caseless: true },
      all: { texts: [secret.name, secret.description ?? '', ...tags.flat()], caseless: true },
    };
    const candidate = candidates[filter.Key ?? ''];
    if (!candidate) throw new DoubleError('ValidationException', `unsupported filter key ${filter.Key}`);
    return values.some((raw) => {
      const negate = raw.startsWith('!');
      const value = negate ? raw.slice(1) : raw;
      const norm = (s: string) => (candidate.caseless ? s.toLowerCase() : s);
      const hit = candidate.texts.some((t) =>
        filter.Key === 'all' ? norm(t).includes(norm(value)) : norm(t).startsWith(norm(value)),
      );
      return negate ? !hit : hit;
    });
  });
}

export function listEntry(secret: StoredSecret): Record<string, unknown> {
  return {
    ARN: secret.arn,
    Name: secret.name,
    ...(secret.description ? { Description: secret.description } : {}),
    Tags: Object.entries(secret.tags ?? {}).map(([Key, Value]) => ({ Key, Value })),
    CreatedDate: CREATED_EPOCH_SECONDS,
    LastChangedDate: CREATED_EPOCH_SECONDS,
    SecretVersionsToStages: Object.fromEntries(secret.versions.map((v) => [v.versionId, v.stages])),
    ...(secret.deletedPending ? { DeletedDate: CREATED_EPOCH_SECONDS + 86400 } : {}),
  };
}
