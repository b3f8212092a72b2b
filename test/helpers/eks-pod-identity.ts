import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface PodIdentityDouble {
  /** `http://127.0.0.1:<port>`: what `EKS_ENDPOINT` points at. */
  readonly endpoint: string;
  /** Adds an association (EKS allows one per ServiceAccount) and returns its id. */
  associate(record: PodIdentityAssociationRecord): string;
  /** Clusters that exist (ListPodIdentityAssociations on another answers ResourceNotFoundException). */
  readonly clusters: Set<string>;
  /** Access key ids refused with AccessDeniedException. */
  readonly denied: Set<string>;
  readonly calls: PodIdentityCall[];
  /** While set, requests are read but never answered (a hung endpoint). */
  hang: boolean;
  close(): Promise<void>;
}

const ACCOUNT = '111111111111';
const CREDENTIAL = /Credential=([^/]+)\/\d{8}\/([a-z0-9-]+)\/eks\/aws4_request/;
const LIST = /^\/clusters\/([^/]+)\/pod-identity-associations$/;
const DESCRIBE = /^\/clusters\/([^/]+)\/pod-identity-associations\/([^/]+)$/;

/**
 * EKS's Pod Identity API on loopback, REST JSON as the SDK speaks it: `GET /clusters/{name}/pod-identity-
 * associations?namespace=&serviceAccount=&maxResults=&nextToken=` → `{"associations": [summary], "nextToken"}`
 * and `GET /clusters/{name}/pod-identity-associations/{id}` → `{"association": {...}}`. Errors as EKS sends
 * them: the `x-amzn-errortype` header and a JSON `message`. Requests must be SigV4-signed for `eks`.
 */
export async function startPodIdentityDouble(): Promise<PodIdentityDouble> {
  const associations = new Map<string, PodIdentityAssociationRecord & { id: string }>();
  const clusters = new Set<string>();
  const denied = new Set<string>();
  const calls: PodIdentityCall[] = [];
  const hung = new Set<ServerResponse>();
  const state = { hang: false };
  const server = createServer((request, response) => {
    if (state.hang) {
      hung.add(response);
      return;
    }
    const url = new URL(request.url ?? '/', 'http://eks.local');
    const list = LIST.exec(url.pathname);
    const describe = DESCRIBE.exec(url.pathname);
    if (request.method !== 'GET' || (list === null && describe === null)) {
      return fail(
        response,
        404,
        'UnknownOperationException',
        `no route for ${request.method} ${url.pathname}`,
      );
    }
    const signed = CREDENTIAL.exec(request.headers.authorization ?? '');
    if (signed === null) {
      return fail(response, 403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    }
    const [, accessKeyId = '', region = ''] = signed;
    const cluster = decodeURIComponent((list ?? describe)?.[1] ?? '');
    const operation = list ? 'ListPodIdentityAssociations' : 'DescribePodIdentityAssociation';
    calls.push({ operation, cluster, query: Object.fromEntries(url.searchParams), region, accessKeyId });
    if (denied.has(accessKeyId)) {
      return fail(
        response,
        403,
        'AccessDeniedException',
        `User: arn:aws:sts::${ACCOUNT}:assumed-role/${accessKeyId} is not authorized to perform: eks:${operation} on resource: arn:aws:eks:${region}:${ACCOUNT}:cluster/${cluster}`,
      );
    }
    if (!clusters.has(cluster)) {
      return fail(response, 404, 'ResourceNotFoundException', `No cluster found for name: ${cluster}.`);
    }
    if (list) {
      const max = url.searchParams.get('maxResults');
      if (max !== null && !(Number(max) >= 1 && Number(max) <= 100)) {
        return fail(response, 400, 'InvalidParameterException', 'maxResults must be between 1 and 100');
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
      return answer(response, { associations: summaries });
    }
    const found = associations.get(decodeURIComponent(describe?.[2] ?? ''));
    if (found === undefined || found.cluster !== cluster) {
      return fail(response, 404, 'ResourceNotFoundException', 'The specified association was not found.');
    }
    const at = new Date('2026-11-30T10:00:00Z').getTime() / 1000;
    return answer(response, {
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
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    associate: (record) => {
      const id = `a-${randomBytes(9).toString('hex').slice(0, 17)}`;
      clusters.add(record.cluster);
      associations.set(id, { ...record, id });
      return id;
    },
    clusters,
    denied,
    calls,
    get hang() {
      return state.hang;
    },
    set hang(value: boolean) {
      state.hang = value;
    },
    close: async () => {
      for (const response of hung) response.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
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
