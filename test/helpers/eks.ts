import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PodIdentityApi, podIdentityApi } from './eks-pod-identity.js';

/** What the double answers DescribeCluster with for one cluster. */
export interface EksClusterRecord {
  readonly endpoint?: string;
  /** Base64 PEM, as `certificateAuthority.data`. */
  readonly caData?: string;
  readonly status?: 'ACTIVE' | 'CREATING' | 'UPDATING';
  /** Access key ids allowed to describe it (default: any signed caller). */
  readonly allowed?: readonly string[];
}

export interface EksCall {
  readonly name: string;
  readonly region: string;
  readonly accessKeyId: string;
}

export interface EksDouble {
  /** `http://127.0.0.1:<port>`: what `EKS_ENDPOINT` points at. */
  readonly endpoint: string;
  readonly clusters: Map<string, EksClusterRecord>;
  readonly calls: EksCall[];
  /** List/DescribePodIdentityAssociation (`eks-pod-identity.ts`); a cluster in `clusters` exists for it too. */
  readonly podIdentity: PodIdentityApi;
  /** While set, requests are read but never answered (a hung endpoint). */
  hang: boolean;
  close(): Promise<void>;
}

// EKS's rule for cluster names (DescribeCluster answers InvalidParameterException otherwise).
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const CREDENTIAL = /Credential=([^/]+)\/\d{8}\/([a-z0-9-]+)\/eks\/aws4_request/;

/**
 * An EKS control-plane double on loopback speaking what the SDK speaks: REST JSON `GET /clusters/{name}`
 * → `{"cluster": {...}}`; errors as EKS sends them, the `x-amzn-errortype` header and a JSON body with
 * `message`. A request must be SigV4-signed for service `eks`; the caller's access key id decides access.
 */
export async function startEksDouble(): Promise<EksDouble> {
  const clusters = new Map<string, EksClusterRecord>();
  const calls: EksCall[] = [];
  const hung = new Set<ServerResponse>();
  const state = { hang: false };
  const pods = podIdentityApi((name) => clusters.has(name));
  const server = createServer((request, response) => {
    if (state.hang) {
      hung.add(response);
      return;
    }
    const url = new URL(request.url ?? '/', 'http://eks.local');
    if (pods.route(request, response, url)) return;
    const match = /^\/clusters\/([^/]+)$/.exec(url.pathname);
    if (request.method !== 'GET' || match === null) {
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
    const name = decodeURIComponent(match[1] ?? '');
    const accessKeyId = signed[1] ?? '';
    calls.push({ name, region: signed[2] ?? '', accessKeyId });
    if (!CLUSTER_NAME.test(name)) {
      return fail(response, 400, 'InvalidParameterException', 'The cluster name is not valid');
    }
    const record = clusters.get(name);
    if (record?.allowed !== undefined && !record.allowed.includes(accessKeyId)) {
      return fail(
        response,
        403,
        'AccessDeniedException',
        `User: arn:aws:sts::123456789012:assumed-role/${accessKeyId} is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:${signed[2]}:123456789012:cluster/${name}`,
      );
    }
    if (record === undefined) {
      return fail(response, 404, 'ResourceNotFoundException', `No cluster found for name: ${name}.`, {
        clusterName: name,
      });
    }
    const cluster = {
      name,
      arn: `arn:aws:eks:${signed[2]}:123456789012:cluster/${name}`,
      status: record.status ?? 'ACTIVE',
      ...(record.endpoint === undefined ? {} : { endpoint: record.endpoint }),
      ...(record.caData === undefined ? {} : { certificateAuthority: { data: record.caData } }),
      accessConfig: { authenticationMode: 'API' },
    };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ cluster }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    clusters,
    calls,
    podIdentity: { associate: pods.associate, denied: pods.denied, calls: pods.calls },
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

function fail(
  response: ServerResponse,
  status: number,
  type: string,
  message: string,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  response.end(JSON.stringify({ ...extra, message }));
}
