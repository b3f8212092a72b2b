import type { StoreOverride } from '../fleet/fleet-config.js';
import type { SecretStoreDoc, StoreAuth, StoreIdentity, StoreKind, StoreRef } from './external-secret.js';
import { compileGoRegexp } from './go-regexp.js';
import type { AwsTarget } from './secrets-manager-api.js';

export interface ResolvedStore {
  readonly kind: StoreKind;
  readonly name: string;
  readonly source: 'manifests' | 'cluster' | 'fleet';
  /** Region and the store's own roles; the identity they are assumed from is settled by `storeTarget`. */
  readonly target: AwsTarget;
  readonly prefix: string;
  /** Whose credentials ESO would start from. */
  readonly identity: StoreIdentity;
  /** The destination cluster's fleet name (where a ServiceAccount is read, whose `preflightRoleArn` applies). */
  readonly cluster?: string;
}

export type StoreResolution =
  | { readonly ok: true; readonly store: ResolvedStore }
  | { readonly ok: false; readonly outcome: 'error' | 'unsupported'; readonly message: string };

export interface StoreSources {
  /** Stores in the app's own manifests at the pushed commit. */
  readonly manifests: readonly SecretStoreDoc[];
  /** Stores read live from the destination cluster (when it is in the fleet). */
  readonly cluster: readonly SecretStoreDoc[];
  /** `secretStores` of the fleet file. */
  readonly overrides: readonly StoreOverride[];
  /** The destination cluster's fleet name, for overrides scoped to one cluster. */
  readonly clusterName?: string;
}

/** Finds the store an ExternalSecret in `namespace` names: its manifests, then the cluster, then the fleet file. */
export function resolveStore(ref: StoreRef, namespace: string, sources: StoreSources): StoreResolution {
  const matches = (doc: SecretStoreDoc) =>
    doc.kind === ref.kind &&
    doc.name === ref.name &&
    (doc.kind === 'ClusterSecretStore' || doc.namespace === namespace);
  const inManifests = sources.manifests.find(matches);
  if (inManifests) return fromDoc(inManifests, 'manifests', namespace, sources.clusterName);
  const onCluster = sources.cluster.find(matches);
  if (onCluster) return fromDoc(onCluster, 'cluster', namespace, sources.clusterName);
  const override = sources.overrides.find(
    (o) =>
      o.kind === ref.kind &&
      o.name === ref.name &&
      (o.kind === 'ClusterSecretStore' || o.namespace === undefined || o.namespace === namespace) &&
      (o.cluster === undefined || o.cluster === sources.clusterName),
  );
  if (override) return fromOverride(override, sources.clusterName);
  return {
    ok: false,
    outcome: 'error',
    message: `store ${ref.kind} "${ref.name}" not found (looked in the manifests, on the destination cluster and in the fleet file)`,
  };
}

/** One store read live from a cluster, on its own (the audit's coverage): its `spec.conditions` not applied. */
export function resolveLiveStore(doc: SecretStoreDoc, cluster: string): StoreResolution {
  return fromDoc({ ...doc, conditions: [] }, 'cluster', doc.namespace ?? '', cluster);
}

function fromDoc(
  doc: SecretStoreDoc,
  source: ResolvedStore['source'],
  namespace: string,
  cluster: string | undefined,
): StoreResolution {
  const label = `${doc.kind} "${doc.name}"`;
  const provider = doc.provider;
  if (provider.type === 'invalid')
    return { ok: false, outcome: 'error', message: `${label}: ${provider.message}` };
  if (provider.type === 'other') {
    return {
      ok: false,
      outcome: 'unsupported',
      message: `${label} uses provider ${provider.name}; only aws SecretsManager is resolved`,
    };
  }
  if (provider.service !== 'SecretsManager') {
    return {
      ok: false,
      outcome: 'unsupported',
      message: `${label} uses aws ${provider.service}; only SecretsManager is resolved`,
    };
  }
  if (provider.region === undefined)
    return { ok: false, outcome: 'error', message: `${label} has no spec.provider.aws.region` };
  if (!namespaceAllowed(doc, namespace)) {
    return {
      ok: false,
      outcome: 'error',
      message: `using cluster store "${doc.name}" is not allowed from namespace "${namespace}": denied by spec.condition`,
    };
  }
  // ESO's flood gate (on by default) refuses a store whose Ready condition is not True.
  if (doc.ready && !doc.ready.status)
    return { ok: false, outcome: 'error', message: `${label} is not ready` };
  return {
    ok: true,
    store: {
      kind: doc.kind,
      name: doc.name,
      source,
      prefix: provider.prefix,
      target: {
        region: provider.region,
        ...(provider.role ? { role: provider.role } : {}),
        ...(provider.additionalRoles.length > 0 ? { additionalRoles: provider.additionalRoles } : {}),
        ...(provider.externalId ? { externalId: provider.externalId } : {}),
        ...(provider.sessionTags ? { sessionTags: provider.sessionTags } : {}),
        ...(provider.transitiveTagKeys ? { transitiveTagKeys: provider.transitiveTagKeys } : {}),
      },
      identity: identityOf(doc, provider.auth, namespace),
      ...(cluster === undefined ? {} : { cluster }),
    },
  };
}

/** ESO's `credsFromServiceAccount`: a ClusterSecretStore's ref may name a namespace, else the ExternalSecret's. */
function identityOf(doc: SecretStoreDoc, auth: StoreAuth, namespace: string): StoreIdentity {
  if (auth.type === 'secretRef') return { type: 'static-keys' };
  if (auth.type === 'default') return { type: 'controller' };
  const ref = auth.serviceAccount;
  const at = doc.kind === 'ClusterSecretStore' && ref.namespace ? ref.namespace : namespace;
  return { type: 'service-account', name: ref.name, namespace: at };
}

function fromOverride(o: StoreOverride, cluster: string | undefined): StoreResolution {
  if (o.service !== 'SecretsManager') {
    return {
      ok: false,
      outcome: 'unsupported',
      message: `${o.kind} "${o.name}" (fleet file) uses aws ${o.service}; only SecretsManager is resolved`,
    };
  }
  return {
    ok: true,
    store: {
      kind: o.kind,
      name: o.name,
      source: 'fleet',
      prefix: o.prefix ?? '',
      target: { region: o.region, ...(o.role ? { role: o.role } : {}) },
      identity: { type: 'controller' },
      ...(cluster === undefined ? {} : { cluster }),
    },
  };
}

/** ClusterSecretStore `spec.conditions`: any condition naming the namespace allows it. */
function namespaceAllowed(doc: SecretStoreDoc, namespace: string): boolean {
  if (doc.conditions.length === 0) return true;
  return doc.conditions.some(
    (c) =>
      // A namespaceSelector needs labels the preflight does not read: assume it allows.
      c.hasSelector ||
      c.namespaces.includes(namespace) ||
      c.namespaceRegexes.some((pattern) => {
        const compiled = compileGoRegexp(pattern);
        return compiled.ok && compiled.regexp.test(namespace);
      }),
  );
}
