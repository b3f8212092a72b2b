import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One EKS Pod Identity association the double holds. */
export interface PodIdentityAssociationRecord {
  readonly cluster: string;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly roleArn: string;
  readonly targetRoleArn?: string;
}

export interface PodIdentityCall {
  readonly operation: 'ListPodIdentityAssociations' | 'DescribePodIdentityAssociation';
  readonly cluster: string;
  readonly query: Readonly<Record<string, string>>;
  readonly region: string;
  readonly accessKeyId: string;
}

/** The Pod Identity part of the EKS double (`startEksDouble().podIdentity`). */
export interface PodIdentityApi {
  /** Adds an association (EKS allows one per ServiceAccount) and returns its id; its cluster then exists. */
  associate(record: PodIdentityAssociationRecord): string;
  /** Access key ids refused with AccessDeniedException. */
  readonly denied: Set<string>;
  readonly calls: PodIdentityCall[];
}

const ACCOUNT = '111111111111';
const CREDENTIAL = /Credential=([^/]+)\/\d{8}\/([a-z0-9-]+)\/eks\/aws4_request/;
const LIST = /^\/clusters\/([^/]+)\/pod-identity-associations$/;
const DESCRIBE = /^\/clusters\/([^/]+)\/pod-identity-associations\/([^/]+)$/;

/**
 * EKS's Pod Identity API, REST JSON as the SDK speaks it: `GET /clusters/{name}/pod-identity-associations
 * ?namespace=&serviceAccount=&maxResults=&nextToken=` → `{"associations": [summary]}` and `GET /clusters/
 * {name}/pod-identity-associations/{id}` → `{"association": {...}}`. Errors as EKS sends them: the
 * `x-amzn-errortype` header and a JSON `message`. Requests must be SigV4-signed for `eks`. `route` answers
 * the request and returns true when it is one of these two operations.
 */
export function podIdentityApi(exists: (cluster: string) => boolean): PodIdentityApi & {
  route(request: IncomingMessage, response: ServerResponse, url: URL): boolean;
} {
  const associations = new Map<string, PodIdentityAssociationRecord & { id: string }>();
  const denied = new Set<string>();
  const calls: PodIdentityCall[] = [];
  const route = (request: IncomingMessage, response: ServerResponse, url: URL): boolean => {
    const list = LIST.exec(url.pathname);
    const describe = DESCRIBE.exec(url.pathname);
    if (list === null && describe === null) return false;
    if (request.method !== 'GET') {
      fail(response, 404, 'UnknownOperationException', `no route for ${request.method} ${url.pathname}`);
      return true;
    }
    const signed = CREDENTIAL.exec(request.headers.authorization ?? '');
    if (signed === null) {
      fail(response, 403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
      return true;
    }
    const [, accessKeyId = '', region = ''] = signed;
    const cluster = decodeURIComponent((list ?? describe)?.[1] ?? '');
    const operation = list ? 'ListPodIdentityAssociations' : 'DescribePodIdentityAssociation';
    calls.push({ operation, cluster, query: Object.fromEntries(url.searchParams), region, accessKeyId });
    const known = exists(cluster) || [...associations.values()].some((a) => a.cluster === cluster);
    if (denied.has(accessKeyId)) {
      fail(
        response,
        403,
        'AccessDeniedException',
        `User: arn:aws:sts::${ACCOUNT}:assumed-role/${accessKeyId} is not authorized to perform: eks:${operation} on resource: arn:aws:eks:${region}:${ACCOUNT}:cluster/${cluster}`,
      );
    } else if (!known) {
      fail(response, 404, 'ResourceNotFoundException', `No cluster found for name: ${cluster}.`);
    } else if (list) {
      const max = url.searchParams.get('maxResults');
      if (max !== null && !(Number(max) >= 1 && Number(max) <= 100)) {
        fail(response, 400, 'InvalidParameterException', 'maxResults must be between 1 and 100');
        return true;
      }
      const namespace = url.searchParams.get('namespace');
      const serviceAccount = url.searchParams.get('serviceAccount');
      const summaries = [...associations.values()]
        .filter((a) => a.cluster === cluster)
        .filter((a) => namespace === null || a.namespace === namespace)
        .filter((a) => serviceAccount === null || a.serviceAccount === serviceAccount)
        .map((a) => ({
          clusterName: a.cluster,
          namespace: a.namespace,
          serviceAccount: a.serviceAccount,
          associationArn: arnOf(region, a),
          associationId: a.id,
        }));
      answer(response, { associations: summaries });
    } else {
      const found = associations.get(decodeURIComponent(describe?.[2] ?? ''));
      if (found === undefined || found.cluster !== cluster) {
        fail(response, 404, 'ResourceNotFoundException', 'The specified association was not found.');
        return true;
      }
      const at = new Date('2026-11-30T10:00:00Z').getTime() / 1000;
      answer(response, {
        association: {
          clusterName: found.cluster,
          namespace: found.namespace,
          serviceAccount: found.serviceAccount,
          roleArn: found.roleArn,
          associationArn: arnOf(region, found),
          associationId: found.id,
          tags: {},
          createdAt: at,
          modifiedAt: at,
          disableSessionTags: false,
          ...(found.targetRoleArn === undefined ? {} : { targetRoleArn: found.targetRoleArn }),
        },
      });
    }
    return true;
  };
  return {
    associate: (record) => {
      const id = `a-${randomBytes(9).toString('hex').slice(0, 17)}`;
      associations.set(id, { ...record, id });
      return id;
    },
    denied,
    calls,
    route,
  };
}

const arnOf = (region: string, a: { cluster: string; id: string }) =>
  `arn:aws:eks:${region}:${ACCOUNT}:podidentityassociation/${a.cluster}/${a.id}`;

function answer(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function fail(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  response.end(JSON.stringify({ message }));
}
