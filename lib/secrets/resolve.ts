import type { Logger } from '../ports.js';
import { failureOutcome } from './aws-failure.js';
import type { BoundReference, CheckableReference } from './bound-reference.js';
import { mapWithLimit } from './concurrency.js';
import type { RemoteRef } from './external-secret.js';
import { resolveFind } from './find.js';
import type { JsonValue } from './gjson-path.js';
import { lookupProperty } from './property.js';
import type { SecretCheck } from './secret-check.js';
import {
  createResolutionCache,
  createSecretFetcher,
  type FetchRequest,
  type FetchResult,
  type ResolutionCache,
  type SecretFetcher,
} from './secret-fetcher.js';
import type { SecretsManagerApi } from './secrets-manager-api.js';
import { type IdentityDeps, type StoreTarget, storeTarget } from './store-identity.js';
import type { ResolvedStore } from './store-resolution.js';

export type { BoundReference, CheckableReference } from './bound-reference.js';

import { checkDataValue, checkExtractValue } from './value-checks.js';

/** A reference whose store is known. */

export interface ResolveDeps {
  readonly api: SecretsManagerApi;
  readonly logger: Logger;
  /** Share one per invocation so apps reading the same secrets cost one call. */
  readonly cache?: ResolutionCache;
  readonly concurrency?: number;
  /** How a store's identity is read (ServiceAccounts, `preflightRoleArn`, the assumable roles). */
  readonly identity?: IdentityDeps;
}

/**
 * Resolves every reference as ESO's AWS Secrets Manager provider would, one list of checks per input
 * reference (a `find` may add one check per secret it could not read). Secret values exist only inside
 * this evaluation: the checks carry outcomes and ESO-worded messages, never a value.
 */
export async function resolveReferences(
  bound: readonly BoundReference[],
  deps: ResolveDeps,
): Promise<SecretCheck[][]> {
  const fetcher = createSecretFetcher({
    api: deps.api,
    cache: deps.cache ?? createResolutionCache(),
    logger: deps.logger,
    ...(deps.concurrency === undefined ? {} : { concurrency: deps.concurrency }),
  });
  // One identity per store (a ServiceAccount read at most once), whatever the number of references.
  const targets = new Map<string, Promise<StoreTarget>>();
  const targetOf = (store: ResolvedStore) => {
    const key = JSON.stringify([store.cluster, store.identity, store.target]);
    let found = targets.get(key);
    if (found === undefined) {
      found = storeTarget(store, deps.identity ?? {});
      targets.set(key, found);
    }
    return found;
  };
  const settled = await Promise.all(
    bound.map(async (b) => {
      const target = await targetOf(b.store);
      return target.ok
        ? {
            ready: true as const,
            b: { ...b, store: { ...b.store, target: target.target } },
            note: target.note,
          }
        : { ready: false as const, b, target };
    }),
  );
  await fetcher.prefetch(
    settled.flatMap(({ ready, b }) =>
      !ready || b.reference.type === 'find' ? [] : [fetchRequest(b, b.reference.remoteRef)],
    ),
  );
  return mapWithLimit(settled, deps.concurrency ?? 8, (s) =>
    s.ready
      ? resolveOne(s.b, fetcher).then((checks) => withNote(checks, s.note))
      : Promise.resolve([identityCheck(s.b, s.target)]),
  );
}

/**
 * Checks read with a stand-in for ESO's identity carry why (`identity: …`). A refusal is then `unchecked`,
 * never a misleading `access-denied`: it says nothing about what ESO may read. So is a secret the stand-in
 * does not find: a name resolves in the reader's own account, and ESO's role may live in another, so it
 * must not block a deploy on a guess.
 */
function withNote(checks: SecretCheck[], note: string | undefined): SecretCheck[] {
  if (note === undefined) return checks;
  return checks.map((c) =>
    c.outcome === 'access-denied' || c.outcome === 'missing-secret'
      ? {
          ...c,
          outcome: 'unchecked',
          message: `${note}: ${c.message ?? (c.outcome === 'access-denied' ? 'access denied' : 'not found')}`,
        }
      : { ...c, message: c.message === undefined ? note : `${c.message}; ${note}` },
  );
}

/** A reference whose store's identity could not be taken on: nothing was read. */
function identityCheck(b: BoundReference, target: Exclude<StoreTarget, { ok: true }>): SecretCheck {
  const { reference } = b;
  const key = reference.type === 'find' ? reference.find.path : reference.remoteRef.key;
  return {
    externalSecret: b.externalSecret.id,
    field: reference.field,
    ...(key === undefined ? {} : { key }),
    store: `${b.store.kind}/${b.store.name}`,
    outcome: target.outcome,
    message: target.message,
  };
}

function fetchRequest(b: BoundReference, ref: RemoteRef): FetchRequest {
  return {
    target: b.store.target,
    secretId: b.store.prefix + ref.key,
    ...(ref.version === undefined ? {} : { version: ref.version }),
    ...(ref.metadataPolicy === 'Fetch' ? { metadata: true } : {}),
  };
}

async function resolveOne(b: BoundReference, fetcher: SecretFetcher): Promise<SecretCheck[]> {
  const { reference } = b;
  if (reference.type === 'find') return resolveFind(b, reference, fetcher);
  const request = fetchRequest(b, reference.remoteRef);
  const result = await fetcher.fetch(request);
  return [evaluate(b, reference, request, result)];
}

function evaluate(
  b: BoundReference,
  reference: Exclude<CheckableReference, { type: 'find' }>,
  request: FetchRequest,
  result: FetchResult,
): SecretCheck {
  const ref = reference.remoteRef;
  const base = {
    externalSecret: b.externalSecret.id,
    field: reference.field,
    key: ref.key,
    ...(ref.property === undefined ? {} : { property: ref.property }),
    ...(ref.version === undefined ? {} : { version: ref.version }),
    store: `${b.store.kind}/${b.store.name}`,
  };
  const readAs = request.secretId === ref.key ? '' : ` (read as "${request.secretId}")`;
  if (!result.ok) {
    const failure = failureOutcome(result.failure);
    const policy = b.externalSecret.deletionPolicy;
    // DescribeSecret errors never become NoSecretErr in ESO, whatever the deletion policy.
    if (failure.noSecretErr && !request.metadata && policy !== 'Retain') {
      return {
        ...base,
        outcome: failure.outcome,
        blocking: false,
        esoGap: 'skipped-missing',
        message: `${failure.message}${readAs}; ESO skips this entry (deletionPolicy: ${policy}) and reports success, so Secret "${b.externalSecret.targetName}" lacks it`,
      };
    }
    return { ...base, outcome: failure.outcome, message: `${failure.message}${readAs}` };
  }
  let value: JsonValue | undefined;
  if (ref.property === undefined) {
    const plain = result.payload.plain();
    if (plain === undefined) {
      return {
        ...base,
        outcome: 'error',
        message: `invalid secret received. no secret string nor binary for key: ${ref.key}`,
      };
    }
    value = plain;
  } else {
    const found = lookupProperty(result.payload.forProperty(), ref.property);
    if (found.kind === 'not-json') {
      return {
        ...base,
        outcome: 'not-json',
        message: `secret ${ref.key} is not JSON, so property ${ref.property} cannot be read (ESO: key ${ref.property} does not exist in secret ${ref.key})`,
      };
    }
    if (found.kind === 'unsupported') {
      return {
        ...base,
        outcome: 'unsupported',
        message: `property ${ref.property} uses gjson ${found.reason}, which the preflight does not evaluate`,
      };
    }
    if (found.kind === 'missing') {
      return {
        ...base,
        outcome: 'missing-property',
        message: `key ${ref.property} does not exist in secret ${ref.key}${readAs}`,
      };
    }
    value = found.value;
  }
  return reference.type === 'data' ? checkDataValue(base, ref, value) : checkExtractValue(base, ref, value);
}
