import type { EKSClient } from '@aws-sdk/client-eks';
import type { PodIdentityLookup, PodIdentityRequest } from '../secrets/controller-identity.js';
import { type AwsHttpOptions, DEFAULT_AWS_REQUEST_TIMEOUT_MS } from './http-handler.js';

/** A credentials provider as the SDK takes it. */
type Credentials = () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;

export interface PodIdentityReaderOptions {
  /** The function's own credentials, or `roleArn`'s (a cluster's `auth.eks.roleArn`) assumed from them; absent: the SDK's chain. */
  readonly credentials?: (request: { roleArn?: string; region: string }) => Credentials;
  /** `EKS_ENDPOINT` (tests, VPC endpoints). */
  readonly endpoint?: string;
  /** Bounds each request (`AWS_REQUEST_TIMEOUT_MS`); the whole lookup is bounded by `timeoutMs`. */
  readonly http?: AwsHttpOptions;
  /** Longest one lookup (both calls, both attempts) may take (default 8 s). */
  readonly timeoutMs?: number;
}

/** Why a lookup failed, worded for the check's `identity: …` note (never a foreign message). */
export class PodIdentityError extends Error {
  override readonly name = 'PodIdentityError';
}

export const DEFAULT_POD_IDENTITY_TIMEOUT_MS = 8_000;

/**
 * EKS Pod Identity: `ListPodIdentityAssociations` filtered to one ServiceAccount, then
 * `DescribePodIdentityAssociation` for its role. EKS allows one association per ServiceAccount, so the
 * first is the one. Two attempts per call; one client per region and role. The client is imported on
 * first use, so a fleet without such a lookup never loads it.
 */
export function createPodIdentityReader(options: PodIdentityReaderOptions = {}): PodIdentityLookup {
  const clients = new Map<string, EKSClient>();
  const timeoutMs = options.timeoutMs ?? DEFAULT_POD_IDENTITY_TIMEOUT_MS;
  const requestTimeout = options.http?.requestTimeoutMs ?? DEFAULT_AWS_REQUEST_TIMEOUT_MS;
  const requestHandler = {
    connectionTimeout: Math.min(options.http?.connectionTimeoutMs ?? 2_000, requestTimeout),
    requestTimeout,
    throwOnRequestTimeout: true,
  };
  return async (request) => {
    const {
      EKSClient: Client,
      ListPodIdentityAssociationsCommand,
      DescribePodIdentityAssociationCommand,
    } = await import('@aws-sdk/client-eks');
    const key = `${request.roleArn ?? ''}@${request.region}`;
    let client = clients.get(key);
    if (client === undefined) {
      const credentials = options.credentials?.({
        region: request.region,
        ...(request.roleArn === undefined ? {} : { roleArn: request.roleArn }),
      });
      client = new Client({
        region: request.region,
        requestHandler,
        maxAttempts: 2,
        ...(credentials === undefined ? {} : { credentials }),
        ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      });
      clients.set(key, client);
    }
    // One abort bounds both calls and their retries, whatever the runtime SDK's handler does.
    const abortSignal = AbortSignal.timeout(timeoutMs);
    let operation = 'ListPodIdentityAssociations';
    try {
      const listed = await client.send(
        new ListPodIdentityAssociationsCommand({
          clusterName: request.clusterName,
          namespace: request.namespace,
          serviceAccount: request.serviceAccount,
        }),
        { abortSignal },
      );
      const associationId = listed.associations?.find(
        (a) => a.namespace === request.namespace && a.serviceAccount === request.serviceAccount,
      )?.associationId;
      if (associationId === undefined) return { found: false };
      operation = 'DescribePodIdentityAssociation';
      const described = await client.send(
        new DescribePodIdentityAssociationCommand({ clusterName: request.clusterName, associationId }),
        { abortSignal },
      );
      const association = described.association;
      // With a target role, EKS chains into it: the pod's credentials are the target role's.
      const roleArn = association?.targetRoleArn || association?.roleArn;
      if (!roleArn) throw new PodIdentityError(`eks:${operation} ${associationId}: answered no roleArn`);
      return { found: true, roleArn, associationId };
    } catch (error) {
      if (error instanceof PodIdentityError) throw error;
      throw failure(`eks:${operation}`, request, error, abortSignal.aborted ? timeoutMs : undefined);
    }
  };
}

function failure(
  what: string,
  request: PodIdentityRequest,
  error: unknown,
  timedOutAfter: number | undefined,
): PodIdentityError {
  const on = `${what} on EKS cluster ${request.clusterName} in ${request.region}`;
  if (timedOutAfter !== undefined) return new PodIdentityError(`${on}: no answer within ${timedOutAfter} ms`);
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const status = e.$metadata?.httpStatusCode;
  const who = request.roleArn ?? "the function's role";
  if (name === 'AccessDeniedException' || status === 403)
    return new PodIdentityError(`${on}: AccessDeniedException (allow it to ${who})`);
  if (name === 'ResourceNotFoundException' || status === 404)
    return new PodIdentityError(`${on}: no such cluster (check auth.eks.clusterName and region)`);
  // Only the error's name and status: a foreign message is not ours to echo.
  return new PodIdentityError(`${on}: ${name}${status === undefined ? '' : ` (HTTP ${status})`}`);
}
