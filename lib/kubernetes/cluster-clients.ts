import type { AwsHttpOptions } from '../aws/http-handler.js';
import { UpstreamError } from '../errors.js';
import { needsEksDescribe } from '../fleet/aws-scopes.js';
import type { FleetConfig } from '../fleet/fleet-config.js';
import { type Clock, type Logger, type SecretReader, systemClock } from '../ports.js';
import { createAwsCredentials } from './aws-credentials.js';
import { createClientNodeClusterApi } from './client-node-cluster-api.js';
import { type AccessDeps, createAccessSource } from './cluster-access.js';
import type { ClusterApi } from './cluster-api.js';
import { createEksDescribe, type DescribeEksCluster } from './eks-describe.js';
import type { AwsCredentialsProvider } from './eks-token.js';
import { type RetryOptions, withRetry } from './retry.js';

export const DEFAULT_CLUSTER_TIMEOUT_MS = 10_000;

export interface ClusterClientDeps {
  readonly secrets: SecretReader;
  /** For `eks` auth; default: the Lambda's identity through `createAwsCredentials()`. */
  readonly awsCredentials?: AccessDeps['awsCredentials'];
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Applied to each call: retryable failures (409/429/5xx/timeouts/connection) are tried again. */
  readonly retry?: RetryOptions | false;
  /** `auth.eks` clusters without `server`/`caData`: DescribeCluster's endpoint override and timeouts. */
  readonly eks?: { readonly endpoint?: string; readonly http?: AwsHttpOptions };
  /** Instead of the SDK's DescribeCluster (tests). */
  readonly describeEks?: DescribeEksCluster;
}

export type ClusterClients = ReadonlyMap<string, ClusterApi>;

/**
 * One `ClusterApi` per fleet cluster, built once per cold start. Nothing is fetched here: credentials
 * (Secrets Manager, EKS tokens) are resolved on a cluster's first call and cached by the client.
 */
export function createClusterClients(fleet: FleetConfig, deps: ClusterClientDeps): ClusterClients {
  const clients = new Map<string, ClusterApi>();
  const needsAws = fleet.clusters.some((cluster) => 'eks' in cluster.auth);
  const awsCredentials = deps.awsCredentials ?? (needsAws ? createAwsCredentials() : unusedAwsCredentials);
  // One DescribeCluster per cluster and cold start; the clients are built only when a cluster needs one.
  const describeEks =
    deps.describeEks ??
    (fleet.clusters.some(needsEksDescribe)
      ? createEksDescribe({
          credentials: awsCredentials,
          ...(deps.eks?.endpoint === undefined ? {} : { endpoint: deps.eks.endpoint }),
          ...(deps.eks?.http === undefined ? {} : { http: deps.eks.http }),
        })
      : undefined);
  for (const cluster of fleet.clusters) {
    const api = createClientNodeClusterApi({
      cluster: cluster.name,
      access: createAccessSource(cluster, {
        secrets: deps.secrets,
        awsCredentials,
        clock: deps.clock ?? systemClock,
        ...(describeEks === undefined ? {} : { describeEks }),
      }),
      timeoutMs: cluster.timeoutMs ?? DEFAULT_CLUSTER_TIMEOUT_MS,
      // Enough keep-alive sockets for the cluster's refresh concurrency, never fewer than a handful.
      maxSockets: Math.max(cluster.concurrency ?? 16, 4),
      ...(deps.logger === undefined ? {} : { logger: deps.logger.child({ cluster: cluster.name }) }),
    });
    clients.set(cluster.name, deps.retry === false ? api : retrying(api, deps.retry ?? {}));
  }
  return clients;
}

/**
 * Wraps every call of a `ClusterApi` in `withRetry`. A patch is not tried again on a 409: the API server
 * answers a PATCH with 409 only when a `metadata.resourceVersion` precondition failed, and the same body
 * fails the same way; the caller reads the object again (`FleetCluster.patch`'s `rebuild`).
 */
export function retrying(api: ClusterApi, options: RetryOptions): ClusterApi {
  const retryable =
    options.isRetryable ?? ((error: unknown) => error instanceof UpstreamError && error.retryable);
  const patches: RetryOptions = {
    ...options,
    isRetryable: (error) =>
      retryable(error) && !(error instanceof UpstreamError && error.upstreamStatus === 409),
  };
  return {
    cluster: api.cluster,
    list: (...args) => withRetry(() => api.list(...args), options),
    get: (...args) => withRetry(() => api.get(...args), options),
    mergePatch: (...args) => withRetry(() => api.mergePatch(...args), patches),
    mergePatchQuiet: (...args) => withRetry(() => api.mergePatchQuiet(...args), patches),
    jsonPatch: (...args) => withRetry(() => api.jsonPatch(...args), patches),
  };
}

function unusedAwsCredentials(): AwsCredentialsProvider {
  return () => Promise.reject(new Error('no cluster of this fleet uses eks auth'));
}
