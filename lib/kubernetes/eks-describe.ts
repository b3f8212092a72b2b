import type { EKSClient } from '@aws-sdk/client-eks';
import { type AwsHttpOptions, DEFAULT_AWS_REQUEST_TIMEOUT_MS } from '../aws/http-handler.js';
import { UpstreamError } from '../errors.js';
import type { AwsCredentialsProvider } from './eks-token.js';

/** What a cluster's `auth.eks` leaves to EKS: where its API server is and the CA that signed it. */
export interface EksClusterInfo {
  readonly endpoint: string;
  /** Base64 PEM (`certificateAuthority.data`). */
  readonly caData?: string;
}

export interface EksClusterRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly roleArn?: string;
}

export type DescribeEksCluster = (request: EksClusterRequest) => Promise<EksClusterInfo>;

/** DescribeCluster failed or answered without an endpoint; the message says what to grant or set. */
export class EksDescribeError extends UpstreamError {}

export interface EksDescribeOptions {
  /** The orchestrator's credentials, or `roleArn`'s assumed from them. */
  readonly credentials: (request: { roleArn?: string; region: string }) => AwsCredentialsProvider;
  /** `EKS_ENDPOINT` (tests, VPC endpoints). */
  readonly endpoint?: string;
  /** Bounds each call (default 5 s); the SDK's own retries are off, the cluster's retry policy decides. */
  readonly http?: AwsHttpOptions;
}

/**
 * `eks:DescribeCluster`, one client per region and role, each call bounded by the request timeout. The
 * client is imported on first use and left out of the bundles (the Lambda runtime's SDK serves it, as for
 * SSM and S3): only a fleet with such a cluster loads it, once per cold start.
 */
export function createEksDescribe(options: EksDescribeOptions): DescribeEksCluster {
  const clients = new Map<string, EKSClient>();
  const timeoutMs = options.http?.requestTimeoutMs ?? DEFAULT_AWS_REQUEST_TIMEOUT_MS;
  // Options rather than our own handler: the runtime's SDK may carry another @smithy version.
  const requestHandler = {
    connectionTimeout: Math.min(options.http?.connectionTimeoutMs ?? 2_000, timeoutMs),
    requestTimeout: timeoutMs,
    throwOnRequestTimeout: true,
  };
  return async ({ clusterName, region, roleArn }) => {
    const what = `eks DescribeCluster ${clusterName} in ${region}`;
    const context = { clusterName, region, roleArn, timeoutMs };
    let cluster:
      | {
          endpoint?: string | undefined;
          certificateAuthority?: { data?: string | undefined } | undefined;
          status?: string | undefined;
        }
      | undefined;
    try {
      const { EKSClient: Client, DescribeClusterCommand } = await import('@aws-sdk/client-eks');
      const key = `${roleArn ?? ''}@${region}`;
      let client = clients.get(key);
      if (client === undefined) {
        client = new Client({
          region,
          credentials: options.credentials({ region, ...(roleArn === undefined ? {} : { roleArn }) }),
          requestHandler,
          maxAttempts: 1,
          ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
        });
        clients.set(key, client);
      }
      // The abort bounds the call whatever the runtime SDK's handler does with its own timeout.
      const answer = await client.send(new DescribeClusterCommand({ name: clusterName }), {
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
      cluster = answer.cluster;
    } catch (error) {
      throw describeFailure(what, error, context);
    }
    const endpoint = cluster?.endpoint;
    if (endpoint === undefined || !endpoint.startsWith('https://')) {
      throw new EksDescribeError(
        `${what}: no endpoint yet (status ${cluster?.status ?? 'unknown'}); set server and caData, or wait until the cluster is ACTIVE`,
        { retryable: true },
      );
    }
    const caData = cluster?.certificateAuthority?.data;
    return { endpoint, ...(caData === undefined || caData === '' ? {} : { caData }) };
  };
}

function describeFailure(
  what: string,
  error: unknown,
  context: { clusterName: string; region: string; roleArn: string | undefined; timeoutMs: number },
): EksDescribeError {
  const e = error as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: number } };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const status = e.$metadata?.httpStatusCode;
  const who = context.roleArn ?? "the function's role";
  const arn = `arn:aws:eks:${context.region}:<account>:cluster/${context.clusterName}`;
  if (name === 'AccessDeniedException' || status === 403) {
    return new EksDescribeError(
      `${what}: AccessDeniedException — allow eks:DescribeCluster on ${arn} to ${who}, or set server and caData`,
      { retryable: false, upstreamStatus: 403, cause: error },
    );
  }
  if (name === 'ResourceNotFoundException' || status === 404) {
    return new EksDescribeError(`${what}: no such cluster — check auth.eks.clusterName and region`, {
      retryable: false,
      upstreamStatus: 404,
      cause: error,
    });
  }
  if (['TimeoutError', 'RequestTimeout', 'AbortError'].includes(name) || e.code === 'ETIMEDOUT') {
    return new EksDescribeError(`${what}: timed out after ${context.timeoutMs} ms`, {
      retryable: true,
      cause: error,
    });
  }
  // Only the error's name and status: a foreign message is not ours to echo.
  return new EksDescribeError(`${what}: ${name}${status === undefined ? '' : ` (HTTP ${status})`}`, {
    retryable: status === undefined || status === 429 || status >= 500,
    ...(status === undefined ? {} : { upstreamStatus: status }),
    cause: error,
  });
}
