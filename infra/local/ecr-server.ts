import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EcrImageDetail, EcrRegistryState } from './ecr-state.js';

export type { EcrImageDetail, EcrRegistryState } from './ecr-state.js';
export { memoryEcrState } from './ecr-state.js';

export interface LocalEcrOptions {
  readonly state: EcrRegistryState;
  /** The account whose registry a request without `registryId` reads (default 000000000000). */
  readonly accountId?: string;
  readonly port?: number;
  /** Repositories (`registryId/name`) every caller is denied (a role without `ecr:DescribeImages` there). */
  readonly deniedRepositories?: readonly string[];
}

export interface EcrRequest {
  readonly operation: string;
  readonly body: Readonly<Record<string, unknown>>;
  /** The signing region from the request's credential scope. */
  readonly region?: string;
}

export interface LocalEcr {
  /** Serves ECR's `DescribeImages` (AWS JSON 1.1) on loopback. */
  readonly endpoint: string;
  readonly requests: EcrRequest[];
  count(operation: string): number;
  close(): Promise<void>;
}

const TARGET_PREFIX = 'AmazonEC2ContainerRegistry_V20150921.';
const JSON_TYPE = 'application/x-amz-json-1.1';
/** ECR's repositoryName pattern (2 to 256 characters). */
const REPOSITORY_NAME = /^(?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const REGISTRY_ID = /^[0-9]{12}$/;
const TAG_STATUSES = ['TAGGED', 'UNTAGGED', 'ANY'];
/** DescribeImages answers 100 images a page unless `maxResults` says otherwise. */
const DEFAULT_PAGE = 100;

class EcrError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * A local double of ECR's `DescribeImages`, enforcing what the real API does: `maxResults` 1..1000 (100
 * when absent), opaque `nextToken` paging bound to its repository and filter, the `repositoryName` and
 * `registryId` patterns, `filter.tagStatus` (TAGGED, UNTAGGED, ANY), `RepositoryNotFoundException` for a
 * repository the state does not hold, and a SigV4 `Authorization` header on every request.
 */
export async function startLocalEcr(options: LocalEcrOptions): Promise<LocalEcr> {
  const accountId = options.accountId ?? '000000000000';
  const requests: EcrRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        answer(req, Buffer.concat(chunks).toString('utf8'), res);
      } catch (error) {
        const e = error instanceof EcrError ? error : new EcrError('ServerException', 'internal error', 500);
        res.writeHead(e.status, { 'content-type': JSON_TYPE, 'x-amzn-errortype': e.type });
        res.end(JSON.stringify({ __type: e.type, message: e.message }));
      }
    });
  });
  const answer = (req: IncomingMessage, raw: string, res: ServerResponse) => {
    const authorization = String(req.headers.authorization ?? '');
    if (!authorization.startsWith('AWS4-HMAC-SHA256 '))
      throw new EcrError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
    const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(authorization)?.[1];
    const target = String(req.headers['x-amz-target'] ?? '');
    if (req.method !== 'POST' || !target.startsWith(TARGET_PREFIX))
      throw new EcrError('UnknownOperationException', 'no X-Amz-Target of ECR');
    const operation = target.slice(TARGET_PREFIX.length);
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = raw === '' ? {} : JSON.parse(raw);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      throw new EcrError('SerializationException', 'the body is not a JSON object');
    }
    requests.push({ operation, body, ...(region === undefined ? {} : { region }) });
    if (operation !== 'DescribeImages')
      throw new EcrError(
        'UnknownOperationException',
        `operation ${operation} is not served by the local double`,
      );
    const out = JSON.stringify(describeImages(body, region ?? 'us-east-1'));
    res.writeHead(200, { 'content-type': JSON_TYPE });
    res.end(out);
  };

  const describeImages = (body: Record<string, unknown>, region: string) => {
    const name = body.repositoryName;
    const errors: string[] = [];
    if (typeof name !== 'string' || name.length < 2 || name.length > 256 || !REPOSITORY_NAME.test(name))
      errors.push(
        `Value '${String(name)}' at 'repositoryName' failed to satisfy constraint: Member must satisfy regular expression pattern: (?:[a-z0-9]+(?:[._-][a-z0-9]+)*/)*[a-z0-9]+(?:[._-][a-z0-9]+)*`,
      );
    const registryId = body.registryId ?? accountId;
    if (typeof registryId !== 'string' || !REGISTRY_ID.test(registryId))
      errors.push(
        `Value '${String(registryId)}' at 'registryId' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9]{12}`,
      );
    const max = body.maxResults;
    if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 1000))
      errors.push(
        `Value '${String(max)}' at 'maxResults' failed to satisfy constraint: Member must have value ${typeof max === 'number' && max < 1 ? 'greater than or equal to 1' : 'less than or equal to 1000'}`,
      );
    const filter = (body.filter ?? {}) as { tagStatus?: unknown };
    const tagStatus = filter.tagStatus ?? 'ANY';
    if (typeof tagStatus !== 'string' || !TAG_STATUSES.includes(tagStatus))
      errors.push(
        `Value '${String(tagStatus)}' at 'filter.tagStatus' failed to satisfy constraint: Member must satisfy enum value set: [TAGGED, UNTAGGED, ANY]`,
      );
    if (errors.length > 0)
      throw new EcrError(
        'ValidationException',
        `${errors.length} validation error${errors.length > 1 ? 's' : ''} detected: ${errors.join('; ')}`,
      );
    const repositoryName = name as string;
    const id = registryId as string;
    if (options.deniedRepositories?.includes(`${id}/${repositoryName}`))
      throw new EcrError(
        'AccessDeniedException',
        `User is not authorized to perform: ecr:DescribeImages on resource: arn:aws:ecr:${region}:${id}:repository/${repositoryName}`,
      );
    if (body.imageIds !== undefined && body.nextToken !== undefined)
      throw new EcrError('InvalidParameterException', 'nextToken cannot be used with imageIds');
    const images = options.state.images(id, repositoryName);
    if (images === undefined)
      throw new EcrError(
        'RepositoryNotFoundException',
        `The repository with name '${repositoryName}' does not exist in the registry with id '${id}'`,
      );
    const matching = images.filter((d) => {
      const tagged = (d.imageTags ?? []).length > 0;
      return tagStatus === 'ANY' || (tagStatus === 'TAGGED') === tagged;
    });
    const scope = `${id}/${repositoryName}/${tagStatus}`;
    const offset = body.nextToken === undefined ? 0 : readToken(body.nextToken, scope);
    const size = typeof max === 'number' ? max : DEFAULT_PAGE;
    const page = matching.slice(offset, offset + size);
    const next = offset + size < matching.length ? offset + size : undefined;
    return {
      imageDetails: page.map((d) => detailOut(d, id, repositoryName)),
      ...(next === undefined ? {} : { nextToken: token(next, scope) }),
    };
  };

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    count: (operation) => requests.filter((r) => r.operation === operation).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function token(offset: number, scope: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: scope }), 'utf8').toString('base64url');
}

function readToken(raw: unknown, scope: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(String(raw), 'base64url').toString('utf8')) as {
      o?: unknown;
      s?: unknown;
    };
    if (parsed.s === scope && typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0)
      return parsed.o;
  } catch {
    // falls through
  }
  throw new EcrError(
    'InvalidParameterException',
    'Invalid parameter at nextToken: the token is not valid for this request',
  );
}

/** JSON 1.1 timestamps are epoch seconds. */
function detailOut(detail: EcrImageDetail, registryId: string, repositoryName: string) {
  return {
    registryId,
    repositoryName,
    imageDigest: detail.imageDigest,
    ...(detail.imageTags === undefined || detail.imageTags.length === 0
      ? {}
      : { imageTags: [...detail.imageTags] }),
    ...(detail.imagePushedAt === undefined ? {} : { imagePushedAt: detail.imagePushedAt / 1000 }),
    imageSizeInBytes: detail.imageSizeInBytes ?? 1024,
    imageManifestMediaType: detail.imageManifestMediaType ?? 'application/vnd.oci.image.manifest.v1+json',
    ...(detail.artifactMediaType === undefined ? {} : { artifactMediaType: detail.artifactMediaType }),
  };
}
