import type { Limiter } from '../concurrency.js';
import type { KubeResource } from './resources.js';

/** Any object read from a cluster: only `metadata` is relied on; the rest is checked where it is read. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: KubeObjectMeta;
  readonly [field: string]: unknown;
}

export interface KubeObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly uid?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

export interface KubeList {
  readonly items: readonly KubeObject[];
  /** The list's `metadata.resourceVersion` (what a watch would start from). */
  readonly resourceVersion: string;
  /** Set when more pages follow: pass it back as `continue` (it expires: a 410 means start again). */
  readonly continue?: string;
}

export interface ListOptions {
  readonly labelSelector?: string;
  /** Page size (the server may send fewer); with `continue`, the next page. */
  readonly limit?: number;
  readonly continue?: string;
  /**
   * A bound on answers read at once (shared by a process's listings: `list-pages.ts`), taken once the
   * server has answered and held while its body is read, parsed and slimmed: the server's time to answer
   * holds no slot.
   */
  readonly slot?: Limiter;
  /** Runs on each item within the slot, so only what it returns outlives the answer. */
  readonly slim?: (item: KubeObject) => KubeObject;
}

/** One RFC 6902 operation (`test` guards the patch: a failed test is a 422 and nothing is changed). */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/**
 * The Kubernetes API of one fleet cluster, as the domain uses it. `namespace` is ignored for
 * cluster-scoped resources; a missing namespace on `list` means all namespaces. Failures are
 * `UpstreamError`s (`upstreamStatus`, `retryable`); a `get` of a missing object is a 404 `UpstreamError`.
 */
export interface ClusterApi {
  readonly cluster: string;
  list(resource: KubeResource, namespace?: string, options?: ListOptions): Promise<KubeList>;
  get(resource: KubeResource, namespace: string | undefined, name: string): Promise<KubeObject>;
  /** JSON merge patch (RFC 7386): `null` removes a key. */
  mergePatch(
    resource: KubeResource,
    namespace: string | undefined,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<KubeObject>;
  /**
   * The same merge patch without reading the object the API server answers with (a real Application is
   * 10-30 KB of JSON): fan-out's refresh needs only to know it was applied.
   */
  mergePatchQuiet(
    resource: KubeResource,
    namespace: string | undefined,
    name: string,
    patch: Record<string, unknown>,
  ): Promise<void>;
  jsonPatch(
    resource: KubeResource,
    namespace: string | undefined,
    name: string,
    operations: readonly JsonPatchOperation[],
  ): Promise<KubeObject>;
}
