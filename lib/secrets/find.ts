import { failureOutcome, toAwsFailure } from './aws-failure.js';
import type { BoundReference } from './bound-reference.js';
import type { FindSpec, SecretReference } from './external-secret.js';
import { compileGoRegexp } from './go-regexp.js';
import type { SecretCheck } from './secret-check.js';
import type { SecretFetcher } from './secret-fetcher.js';
import type { AwsTarget, BatchError, SecretFilter } from './secrets-manager-api.js';

type FindReference = Extract<SecretReference, { type: 'find' }>;

const MAX_PAGES = 500;

/**
 * ESO's `GetAllSecrets`: with a `path` or tags only, BatchGetSecretValue over filters (regexp applied to
 * names client-side); a name without a path lists every secret (ListSecrets) and then reads each match.
 * The preflight requires at least one match. Unlike ESO, per-secret batch errors are reported, not dropped.
 */
export async function resolveFind(
  b: BoundReference,
  reference: FindReference,
  fetcher: SecretFetcher,
): Promise<SecretCheck[]> {
  const { find } = reference;
  const base = {
    externalSecret: b.externalSecret.id,
    field: reference.field,
    ...(find.path === undefined ? {} : { key: find.path }),
    store: `${b.store.kind}/${b.store.name}`,
  };
  const matcher = find.nameRegexp === undefined ? undefined : compileGoRegexp(find.nameRegexp);
  if (matcher && !matcher.ok) return [{ ...base, outcome: matcher.outcome, message: matcher.message }];
  const matches = (name: string) => !matcher || matcher.regexp.test(name);
  const filters: SecretFilter[] = Object.entries(find.tags ?? {}).flatMap(([k, v]) => [
    { key: 'tag-key' as const, values: [k] },
    { key: 'tag-value' as const, values: [v] },
  ]);
  const target = b.store.target;
  const described = describe(find);
  try {
    if (find.path !== undefined || find.nameRegexp === undefined) {
      if (find.path !== undefined) filters.push({ key: 'name', values: [find.path] });
      const { names, errors } = await batchByFilters(fetcher, target, filters);
      const matched = names.filter(matches);
      const failed = errors.filter((e) => matches(nameOf(e.secretId)));
      const extras: SecretCheck[] = failed.map((e) => {
        const outcome = failureOutcome({ code: e.code, message: e.message });
        return {
          ...base,
          key: e.secretId,
          outcome: outcome.outcome,
          message: `${outcome.message} (matched by find; ESO drops it silently)`,
        };
      });
      const [first] = failed;
      if (matched.length === 0 && first) {
        const outcome = failureOutcome({ code: first.code, message: first.message });
        return [
          {
            ...base,
            outcome: outcome.outcome,
            message: `find (${described}) matched no readable secret: ${outcome.message}`,
          },
          ...extras,
        ];
      }
      return [summary(base, matched.length, described), ...extras];
    }
    const names = (await listByFilters(fetcher, target, filters)).filter(matches);
    // ESO reads each match as prefix + name (its fetch prepends the store prefix again).
    const requests = names.map((name) => ({ target, secretId: b.store.prefix + name }));
    await fetcher.prefetch(requests);
    for (const request of requests) {
      const result = await fetcher.fetch(request);
      if (!result.ok) {
        const outcome = failureOutcome(result.failure);
        const policy = b.externalSecret.deletionPolicy;
        // A listed name the store prefix turns into a missing secret is NoSecretErr, which ESO skips.
        const skipped = outcome.noSecretErr && policy !== 'Retain';
        return [
          {
            ...base,
            key: request.secretId,
            outcome: outcome.outcome,
            message: `find (${described}): ${outcome.message} (secret ${request.secretId})${skipped ? `; ESO skips it (deletionPolicy: ${policy})` : ''}`,
            ...(skipped ? { blocking: false, esoGap: 'skipped-missing' as const } : {}),
          },
        ];
      }
    }
    return [summary(base, names.length, described)];
  } catch (error) {
    const outcome = failureOutcome(toAwsFailure(error));
    return [{ ...base, outcome: outcome.outcome, message: `find (${described}): ${outcome.message}` }];
  }
}

function summary(base: Omit<SecretCheck, 'outcome'>, count: number, described: string): SecretCheck {
  if (count > 0)
    return {
      ...base,
      outcome: 'ok',
      message: `find (${described}) matched ${count} secret${count === 1 ? '' : 's'}`,
    };
  return {
    ...base,
    outcome: 'missing-secret',
    esoGap: 'skipped-missing',
    message: `find (${described}) matched no secret; ESO reports success with no keys from it`,
  };
}

async function batchByFilters(
  fetcher: SecretFetcher,
  target: AwsTarget,
  filters: readonly SecretFilter[],
): Promise<{ names: string[]; errors: BatchError[] }> {
  const names: string[] = [];
  const errors: BatchError[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await fetcher.api.batchGetSecretValue({
      ...target,
      filters,
      ...(nextToken ? { nextToken } : {}),
    });
    for (const secret of out.secrets) if (secret.name !== undefined) names.push(secret.name);
    errors.push(...out.errors);
    if (!out.nextToken || out.nextToken === nextToken) break;
    nextToken = out.nextToken;
  }
  fetcher.logger.debug('secrets manager find by batch', {
    region: target.region,
    secrets: names.length,
    errors: errors.length,
  });
  return { names, errors };
}

async function listByFilters(
  fetcher: SecretFetcher,
  target: AwsTarget,
  filters: readonly SecretFilter[],
): Promise<string[]> {
  const names: string[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await fetcher.api.listSecrets({ ...target, filters, ...(nextToken ? { nextToken } : {}) });
    names.push(...out.secrets.map((s) => s.name));
    if (!out.nextToken || out.nextToken === nextToken) break;
    nextToken = out.nextToken;
  }
  fetcher.logger.debug('secrets manager find by list', { region: target.region, secrets: names.length });
  return names;
}

/** A batch error names the secret by id, often its ARN (`…:secret:<name>-<6 chars>`). */
function nameOf(secretId: string): string {
  const arn = /^arn:[^:]+:secretsmanager:[^:]*:\d*:secret:(.+)-[A-Za-z0-9]{6}$/.exec(secretId);
  return arn?.[1] ?? secretId;
}

function describe(find: FindSpec): string {
  const parts = [
    find.nameRegexp === undefined ? undefined : `name.regexp "${find.nameRegexp}"`,
    find.path === undefined ? undefined : `path "${find.path}"`,
    find.tags === undefined
      ? undefined
      : `tags ${Object.entries(find.tags)
          .map(([k, v]) => `${k}=${v}`)
          .join(',')}`,
  ];
  return parts.filter(Boolean).join(', ');
}
