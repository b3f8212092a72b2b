/** ExternalSecret and (Cluster)SecretStore as the preflight reads them (ESO `external-secrets.io`). */

export const ESO_GROUP = 'external-secrets.io';
export const ESO_READ_VERSIONS = ['v1', 'v1beta1'] as const;

export const STORE_KINDS = ['SecretStore', 'ClusterSecretStore'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export const DELETION_POLICIES = ['Retain', 'Delete', 'Merge'] as const;
export type DeletionPolicy = (typeof DELETION_POLICIES)[number];

export const DECODING_STRATEGIES = ['None', 'Base64', 'Base64URL', 'Auto'] as const;
export type DecodingStrategy = (typeof DECODING_STRATEGIES)[number];

export interface StoreRef {
  readonly kind: StoreKind;
  readonly name: string;
}

export interface RemoteRef {
  /** Secret name or ARN, before the store's `prefix`. */
  readonly key: string;
  readonly property?: string;
  /** A staging label, or `uuid/<VersionId>`; absent means `AWSCURRENT`. */
  readonly version?: string;
  readonly decodingStrategy: DecodingStrategy;
  /** `Fetch` reads the secret's tags (DescribeSecret) instead of its value. */
  readonly metadataPolicy: 'None' | 'Fetch';
  readonly nullBytePolicy: 'Ignore' | 'Fail';
}

export interface FindSpec {
  readonly path?: string;
  readonly nameRegexp?: string;
  readonly tags?: Readonly<Record<string, string>>;
}

/** One entry of `spec.data` / `spec.dataFrom`, or the reason it cannot be checked. */
export type SecretReference =
  | {
      readonly type: 'data';
      readonly field: string;
      readonly secretKey: string;
      readonly remoteRef: RemoteRef;
      readonly storeRef: StoreRef;
    }
  | {
      readonly type: 'extract';
      readonly field: string;
      readonly remoteRef: RemoteRef;
      readonly storeRef: StoreRef;
    }
  | { readonly type: 'find'; readonly field: string; readonly find: FindSpec; readonly storeRef: StoreRef }
  | {
      readonly type: 'invalid';
      readonly field: string;
      readonly outcome: 'error' | 'unsupported';
      readonly message: string;
      readonly key?: string;
    };

export interface ExternalSecretDoc {
  /** `namespace/name`. */
  readonly id: string;
  readonly path: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly name: string;
  readonly targetName: string;
  readonly deletionPolicy: DeletionPolicy;
  readonly references: readonly SecretReference[];
}

export interface AwsStoreProvider {
  readonly type: 'aws';
  readonly service: string;
  readonly region?: string;
  readonly role?: string;
  readonly additionalRoles: readonly string[];
  readonly externalId?: string;
  /** `sessionTags` and `transitiveTagKeys`, sent with the AssumeRole of `role`. */
  readonly sessionTags?: readonly SessionTag[];
  readonly transitiveTagKeys?: readonly string[];
  /** Prepended verbatim to every key (no separator added). */
  readonly prefix: string;
  readonly auth: StoreAuth;
}

export interface SessionTag {
  readonly key: string;
  readonly value: string;
}

/**
 * `spec.provider.aws.auth`, in ESO's order: `jwt.serviceAccountRef` (IRSA), else `secretRef` (static keys),
 * else the controller's own identity (`default`).
 */
export type StoreAuth =
  | { readonly type: 'jwt'; readonly serviceAccount: { readonly name: string; readonly namespace?: string } }
  | { readonly type: 'secretRef' }
  | { readonly type: 'default' };

export type StoreProvider =
  | AwsStoreProvider
  | { readonly type: 'other'; readonly name: string }
  | { readonly type: 'invalid'; readonly message: string };

/** A ClusterSecretStore `spec.conditions[]` entry. */
export interface StoreCondition {
  readonly namespaces: readonly string[];
  readonly namespaceRegexes: readonly string[];
  /** `namespaceSelector` needs the namespace's labels, which the preflight does not read. */
  readonly hasSelector: boolean;
}

export interface SecretStoreDoc {
  readonly kind: StoreKind;
  readonly name: string;
  readonly namespace?: string;
  readonly provider: StoreProvider;
  readonly conditions: readonly StoreCondition[];
  /** From a live object's `Ready` condition; absent for stores read from Git. */
  readonly ready?: { readonly status: boolean; readonly message?: string };
}

/** Whose credentials ESO starts from for a store, before its `additionalRoles` and `role`. */
export type StoreIdentity =
  /** `auth.jwt.serviceAccountRef`: the ServiceAccount's IRSA role. */
  | { readonly type: 'service-account'; readonly name: string; readonly namespace: string }
  /** `auth.secretRef`: access keys in a Kubernetes Secret, which the preflight never reads. */
  | { readonly type: 'static-keys' }
  /** No `auth`: the ESO controller's own identity; the preflight stands in with `preflightRoleArn`. */
  | { readonly type: 'controller' };
