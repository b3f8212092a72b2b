import type { ECRClient } from '@aws-sdk/client-ecr';
import type { RegistryImages, RegistryListing } from '../reconcile/ports.js';
import type { EcrRepository, RepositoryImage } from '../registry/ecr-repository.js';
import { DIGEST } from '../registry/registry-event.js';
import { type AwsHttpOptions, DEFAULT_AWS_REQUEST_TIMEOUT_MS } from './http-handler.js';

export interface EcrImagesOptions {
  /** `ECR_ENDPOINT` (the local double, tests, VPC endpoints). */
  readonly endpoint?: string;
  /** Bounds each request (`AWS_REQUEST_TIMEOUT_MS`, `AWS_CONNECT_TIMEOUT_MS`); the pass's deadline bounds all. */
  readonly http?: AwsHttpOptions;
  /** Images per page, at most ECR's 1000 (default 1000). */
  readonly pageSize?: number;
  /** Images read per repository before the listing is cut short (`truncated`; default 10,000). */
  readonly maxImages?: number;
}

export const ECR_MAX_RESULTS = 1000;

/**
 * ECR `DescribeImages` of one repository's tagged images (`filter.tagStatus: TAGGED`), page after page
 * (`nextToken`, `maxResults` ≤ 1000), each call bounded by the request timeout and all of them by the
 * pass's deadline. One client per region; two attempts per call. The client is imported on first use, so a
 * deployment without the ECR catch-up never loads it. Failures are answers, never throws: not found,
 * access denied (the reconcile role lacks `ecr:DescribeImages` there), out of time, failed.
 */
export function createEcrImages(options: EcrImagesOptions = {}): RegistryImages {
  const clients = new Map<string, ECRClient>();
  const requestTimeout = options.http?.requestTimeoutMs ?? DEFAULT_AWS_REQUEST_TIMEOUT_MS;
  const requestHandler = {
    connectionTimeout: Math.min(options.http?.connectionTimeoutMs ?? 2_000, requestTimeout),
    requestTimeout,
    throwOnRequestTimeout: true,
  };
  const pageSize = Math.min(Math.max(options.pageSize ?? ECR_MAX_RESULTS, 1), ECR_MAX_RESULTS);
  const maxImages = options.maxImages ?? 10_000;
  return {
    async describe(repository, deadline): Promise<RegistryListing> {
      const { ECRClient: Client, DescribeImagesCommand } = await import('@aws-sdk/client-ecr');
      let client = clients.get(repository.region);
      if (client === undefined) {
        client = new Client({
          region: repository.region,
          requestHandler,
          maxAttempts: 2,
          ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
        });
        clients.set(repository.region, client);
      }
      const images: RepositoryImage[] = [];
      let nextToken: string | undefined;
      let seen = 0;
      try {
        do {
          const left = deadline - Date.now();
          if (left <= 0) return { ok: true, images, truncated: true };
          const page = await client.send(
            new DescribeImagesCommand({
              registryId: repository.registryId,
              repositoryName: repository.repositoryName,
              filter: { tagStatus: 'TAGGED' },
              maxResults: pageSize,
              ...(nextToken === undefined ? {} : { nextToken }),
            }),
            { abortSignal: AbortSignal.timeout(left) },
          );
          for (const detail of page.imageDetails ?? []) {
            seen += 1;
            const image = imageOf(detail);
            if (image !== undefined) images.push(image);
          }
          nextToken = page.nextToken;
        } while (nextToken !== undefined && seen < maxImages);
      } catch (error) {
        if (Date.now() >= deadline)
          return {
            ok: false,
            reason: 'out-of-time',
            error: `ecr:DescribeImages on ${repository.key}: the pass ran out of time`,
          };
        return failure(repository, error);
      }
      return { ok: true, images, truncated: nextToken !== undefined };
    },
  };
}

function imageOf(detail: {
  imageDigest?: string | undefined;
  imageTags?: string[] | undefined;
  imagePushedAt?: Date | undefined;
}): RepositoryImage | undefined {
  const digest = detail.imageDigest?.toLowerCase();
  const tags = detail.imageTags ?? [];
  if (digest === undefined || !DIGEST.test(digest) || tags.length === 0) return undefined;
  const pushedAt = detail.imagePushedAt?.getTime();
  return { digest, tags, ...(pushedAt === undefined || Number.isNaN(pushedAt) ? {} : { pushedAt }) };
}

function failure(repository: EcrRepository, error: unknown): RegistryListing {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const status = e.$metadata?.httpStatusCode;
  const on = `ecr:DescribeImages on ${repository.key}`;
  if (name === 'RepositoryNotFoundException')
    return { ok: false, reason: 'not-found', error: `${on}: RepositoryNotFoundException` };
  if (name === 'AccessDeniedException' || status === 403)
    return {
      ok: false,
      reason: 'access-denied',
      error: `${on}: AccessDeniedException (grant the reconcile role ecr:DescribeImages on ${repository.arn})`,
    };
  // Only the error's name and status: a foreign message is not ours to echo.
  return {
    ok: false,
    reason: 'failed',
    error: `${on}: ${name}${status === undefined ? '' : ` (HTTP ${status})`}`,
  };
}
