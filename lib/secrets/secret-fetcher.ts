import type { Logger } from '../ports.js';
import { type AwsFailure, ROLE_NOT_ASSUMED, toAwsFailure } from './aws-failure.js';
import { chunk, mapWithLimit } from './concurrency.js';
import {
  type AwsTarget,
  SecretPayload,
  type SecretsManagerApi,
  SecretsManagerError,
} from './secrets-manager-api.js';

export type FetchResult =
  | { readonly ok: true; readonly payload: SecretPayload }
  | { readonly ok: false; readonly failure: AwsFailure };

export interface FetchRequest {
  readonly target: AwsTarget;
  /** The store prefix already applied. */
  readonly secretId: string;
  /** A staging label or `uuid/<VersionId>`; absent means `AWSCURRENT`. */
  readonly version?: string;
  /** ESO `metadataPolicy: Fetch`: the secret's tags as a JSON object instead of its value. */
  readonly metadata?: boolean;
}

/** Fetched results for one invocation, keyed by (region, roles, secret, version); values never leave it. */
export interface ResolutionCache {
  readonly entries: Map<string, Promise<FetchResult>>;
}

export function createResolutionCache(): ResolutionCache {
  return { entries: new Map() };
}

export const BATCH_SIZE = 20;
const CURRENT = 'AWSCURRENT';

export interface SecretFetcher {
  readonly api: SecretsManagerApi;
  readonly logger: Logger;
  /** Reads plain `AWSCURRENT` secrets that share a target through BatchGetSecretValue, 20 per call. */
  prefetch(requests: readonly FetchRequest[]): Promise<void>;
  fetch(request: FetchRequest): Promise<FetchResult>;
}

export function targetKey(target: AwsTarget): string {
  const tags = (target.sessionTags ?? []).map((t) => `${t.key}=${t.value}`).join(',');
  return [
    target.region,
    `from:${target.sourceRole ?? ''}`,
    ...(target.additionalRoles ?? []),
    target.role ?? '',
    target.externalId ?? '',
    tags,
    (target.transitiveTagKeys ?? []).join(','),
  ].join('|');
}

function cacheKey(request: FetchRequest): string {
  const kind = request.metadata ? 'TAG' : 'SECRET';
  return `${targetKey(request.target)}#${request.secretId}#${request.version ?? CURRENT}#${kind}`;
}

export function createSecretFetcher(deps: {
  api: SecretsManagerApi;
  cache: ResolutionCache;
  logger: Logger;
  concurrency?: number;
}): SecretFetcher {
  const { api, cache, logger } = deps;
  const limit = deps.concurrency ?? 8;

  const readOne = async (request: FetchRequest): Promise<FetchResult> => {
    try {
      if (request.metadata) {
        const { tags } = await api.describeSecret({ ...request.target, secretId: request.secretId });
        return { ok: true, payload: new SecretPayload({ text: JSON.stringify(tags) }) };
      }
      const version = request.version ?? CURRENT;
      const selector = version.startsWith('uuid/')
        ? { versionId: version.slice(5) }
        : { versionStage: version };
      const secret = await api.getSecretValue({ ...request.target, secretId: request.secretId, ...selector });
      return { ok: true, payload: secret.payload };
    } catch (error) {
      return { ok: false, failure: toAwsFailure(error) };
    }
  };

  const fetch = (request: FetchRequest): Promise<FetchResult> => {
    const key = cacheKey(request);
    let entry = cache.entries.get(key);
    if (!entry) {
      entry = readOne(request);
      cache.entries.set(key, entry);
    }
    return entry;
  };

  const readBatch = async (target: AwsTarget, ids: readonly string[]): Promise<Map<string, FetchResult>> => {
    const out = new Map<string, FetchResult>();
    try {
      logger.debug('secrets manager batch read', { region: target.region, secrets: ids.length });
      const { secrets, errors } = await api.batchGetSecretValue({ ...target, secretIds: ids });
      for (const id of ids) {
        const secret = secrets.find((s) => s.name === id || s.arn === id);
        if (secret) out.set(id, { ok: true, payload: secret.payload });
        const failed = errors.find((e) => e.secretId === id);
        if (!secret && failed)
          out.set(id, { ok: false, failure: { code: failed.code, message: failed.message } });
      }
    } catch (error) {
      // A transient failure, or a role that cannot be assumed, fails the chunk; anything else (no
      // BatchGetSecretValue permission) falls back to one GetSecretValue per secret below.
      if (error instanceof SecretsManagerError && (error.retryable || error.awsCode === ROLE_NOT_ASSUMED)) {
        for (const id of ids) out.set(id, { ok: false, failure: toAwsFailure(error) });
      }
    }
    return out;
  };

  const prefetch = async (requests: readonly FetchRequest[]): Promise<void> => {
    const groups = new Map<string, { target: AwsTarget; ids: Set<string> }>();
    for (const request of requests) {
      if (request.metadata || (request.version ?? CURRENT) !== CURRENT) continue;
      if (cache.entries.has(cacheKey(request))) continue;
      const key = targetKey(request.target);
      const group = groups.get(key) ?? { target: request.target, ids: new Set<string>() };
      group.ids.add(request.secretId);
      groups.set(key, group);
    }
    const chunks = [...groups.values()]
      .filter((group) => group.ids.size > 1)
      .flatMap((group) => chunk([...group.ids], BATCH_SIZE).map((ids) => ({ target: group.target, ids })));
    await mapWithLimit(chunks, limit, async ({ target, ids }) => {
      const batch = readBatch(target, ids);
      for (const id of ids) {
        const request = { target, secretId: id };
        cache.entries.set(
          cacheKey(request),
          batch.then((results) => results.get(id) ?? readOne(request)),
        );
      }
      await batch;
    });
  };

  return { api, logger, prefetch, fetch };
}
