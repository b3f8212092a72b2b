import { toAwsFailure } from './aws-failure.js';
import { mapWithLimit } from './concurrency.js';
import { readLiveStores } from './extract.js';
import type { AwsTarget } from './secrets-manager-api.js';
import { type IdentityDeps, storeTarget } from './store-identity.js';
import { resolveLiveStore } from './store-resolution.js';

/** How many of a cluster's AWS Secrets Manager stores the preflight can read with ESO's identity. */
export interface StoreCoverage {
  readonly cluster: string;
  readonly stores: number;
  readonly readable: number;
  readonly unreadable: readonly { readonly store: string; readonly reason: string }[];
  /** `3 of 4 stores readable`. */
  readonly summary: string;
}

export interface CoverageDeps {
  readonly identity: IdentityDeps;
  /** Takes on a target's identity (every AssumeRole of its chain); throws when it cannot. */
  readonly probe: (target: AwsTarget) => Promise<void>;
}

/**
 * The preflight's coverage of one cluster's live SecretStores and ClusterSecretStores: each store's
 * identity resolved as at a push (ServiceAccount, `preflightRoleArn`, the assumable roles) and taken on.
 * Stores of other providers or services are not counted. Never throws.
 */
export async function storeCoverage(
  cluster: string,
  objects: readonly unknown[],
  deps: CoverageDeps,
): Promise<StoreCoverage> {
  const docs = readLiveStores(objects);
  const rows = await mapWithLimit(docs, 4, async (doc) => {
    const store = `${doc.kind}/${doc.namespace === undefined ? '' : `${doc.namespace}/`}${doc.name}`;
    const resolved = resolveLiveStore(doc, cluster);
    if (!resolved.ok)
      return resolved.outcome === 'unsupported' ? undefined : { store, reason: resolved.message };
    const { identity } = resolved.store;
    if (identity.type === 'service-account' && identity.namespace === '') {
      return {
        store,
        reason: `reads as ServiceAccount ${identity.name} in each ExternalSecret's namespace: checked at each push`,
      };
    }
    const target = await storeTarget(resolved.store, deps.identity);
    if (!target.ok) return { store, reason: target.message };
    // Read with a stand-in for ESO's controller: not ESO's identity, so not covered.
    if (target.note !== undefined) return { store, reason: target.note };
    try {
      await deps.probe(target.target);
      return { store };
    } catch (error) {
      return { store, reason: toAwsFailure(error).message };
    }
  });
  const counted = rows.filter((r) => r !== undefined);
  const unreadable = counted.flatMap((r) =>
    r.reason === undefined ? [] : [{ store: r.store, reason: r.reason }],
  );
  const readable = counted.length - unreadable.length;
  return {
    cluster,
    stores: counted.length,
    readable,
    unreadable,
    summary: `${readable} of ${counted.length} store${counted.length === 1 ? '' : 's'} readable`,
  };
}
