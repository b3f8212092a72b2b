import {
  type Caller,
  DoubleError,
  type Filter,
  findSecret,
  listEntry,
  matchesFilters,
  readValue,
  type StoredSecret,
} from './secrets-manager-state.js';

export type Operation = (body: Record<string, unknown>, caller: Caller) => Record<string, unknown>;

const NOT_FOUND = "Secrets Manager can't find the specified secret.";

/** The read operations of the Secrets Manager double, over its in-memory secrets. */
export function secretsManagerOperations(
  secrets: ReadonlyMap<string, StoredSecret>,
  options: { pageSize?: number },
): Record<string, Operation> {
  const page = <T>(items: readonly T[], body: Record<string, unknown>, max: number) => {
    const start =
      typeof body.NextToken === 'string' ? Number(Buffer.from(body.NextToken, 'base64url').toString()) : 0;
    const wanted = typeof body.MaxResults === 'number' ? Math.min(body.MaxResults, max) : max;
    const size = Math.max(1, Math.min(wanted, options.pageSize ?? wanted));
    const end = start + size;
    return {
      items: items.slice(start, end),
      ...(end < items.length ? { NextToken: Buffer.from(String(end)).toString('base64url') } : {}),
    };
  };

  // A secret seeded with a region exists only for callers signing for that region (one endpoint per region).
  const regional = (caller: Caller) =>
    [...secrets.values()].filter(
      (s) => s.region === undefined || caller.region === undefined || s.region === caller.region,
    );

  const visible = (body: Record<string, unknown>, caller: Caller) => {
    const filters = (Array.isArray(body.Filters) ? body.Filters : []) as Filter[];
    return regional(caller).filter(
      (s) => (body.IncludePlannedDeletion === true || !s.deletedPending) && matchesFilters(s, filters),
    );
  };

  const find = (secretId: unknown, caller: Caller): StoredSecret => {
    const secret = findSecret(regional(caller), String(secretId ?? ''));
    if (!secret) throw new DoubleError('ResourceNotFoundException', NOT_FOUND);
    return secret;
  };

  /** One BatchGetSecretValue entry: the value, or the error GetSecretValue would have raised. */
  const batchEntry = (secretId: string, caller: Caller, secret = findSecret(regional(caller), secretId)) => {
    try {
      if (!secret) throw new DoubleError('ResourceNotFoundException', NOT_FOUND);
      return { value: readValue(secret, caller, {}) };
    } catch (error) {
      if (!(error instanceof DoubleError)) throw error;
      return { error: { SecretId: secretId, ErrorCode: error.type, Message: error.message } };
    }
  };

  return {
    GetSecretValue: (body, caller) =>
      readValue(find(body.SecretId, caller), caller, {
        ...(typeof body.VersionId === 'string' ? { versionId: body.VersionId } : {}),
        ...(typeof body.VersionStage === 'string' ? { versionStage: body.VersionStage } : {}),
      }),
    BatchGetSecretValue: (body, caller) => {
      const ids = Array.isArray(body.SecretIdList) ? (body.SecretIdList as string[]) : undefined;
      if ((ids === undefined) === (body.Filters === undefined)) {
        throw new DoubleError(
          'InvalidParameterException',
          'Either SecretIdList or Filters must be provided, but not both.',
        );
      }
      if (ids && ids.length > 20) {
        throw new DoubleError('ValidationException', 'SecretIdList has more than 20 members');
      }
      const paged = ids ? undefined : page(visible(body, caller), body, 20);
      const results = ids
        ? ids.map((id) => batchEntry(id, caller))
        : (paged?.items ?? []).map((s) => batchEntry(s.arn, caller, s));
      return {
        SecretValues: results.flatMap((r) => (r.value ? [r.value] : [])),
        Errors: results.flatMap((r) => (r.error ? [r.error] : [])),
        ...(paged?.NextToken ? { NextToken: paged.NextToken } : {}),
      };
    },
    ListSecrets: (body, caller) => {
      const { items, ...token } = page(visible(body, caller), body, 100);
      return { SecretList: items.map(listEntry), ...token };
    },
    DescribeSecret: (body, caller) => {
      const { SecretVersionsToStages, ...entry } = listEntry(find(body.SecretId, caller));
      return { ...entry, VersionIdsToStages: SecretVersionsToStages };
    },
  };
}
