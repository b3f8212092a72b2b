import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APPLICATIONS } from '../../lib/kubernetes/resources.js';
import { FaultInjector } from './faults.js';
import { RenderFailure, renderApplication, type SimRenderDeps } from './render-app.js';
import type { ResourceStore } from './resource-store.js';

/** What one Argo CD API token may read: `*` or a list of projects (`p, role:x, applications, get, <proj>/*`). */
export interface ArgoTokenGrant {
  readonly projects: '*' | readonly string[];
}

export interface ArgoCdApiServerOptions extends SimRenderDeps {
  /** The Argo CD cluster's objects (its Applications). */
  readonly store: ResourceStore;
  readonly tokens: Readonly<Record<string, ArgoTokenGrant>>;
  /** Argo CD's own namespace: the `appNamespace` default. */
  readonly namespace?: string;
}

export interface ManifestsRequestRecord {
  readonly name: string;
  readonly appNamespace?: string;
  readonly revision?: string;
  readonly sourcePositions: readonly string[];
  readonly revisions: readonly string[];
  /** Whether an Authorization header came with it (never its value). */
  readonly authorized: boolean;
}

export interface ArgoCdApiServer {
  readonly url: string;
  /** Scripted answers: `faults.set({ status: 503, times: 2 })`, `{ latencyMs }`, `{ hang: true }`. */
  readonly faults: FaultInjector;
  readonly requests: ManifestsRequestRecord[];
  close(): Promise<void>;
}

/**
 * A double of Argo CD's API server for `GET /api/v1/applications/{name}/manifests`: bearer tokens with
 * project grants, grpc-gateway error bodies (`{"error","code","message"}`), 403 for an app the caller may
 * not know exists (404 only when the query names its project, as Argo CD does), and a repo-server stand-in
 * that renders plain and Kustomize sources from the local Git repositories and canned Helm output.
 */
export async function startArgoCdApiServer(options: ArgoCdApiServerOptions): Promise<ArgoCdApiServer> {
  const faults = new FaultInjector();
  const requests: ManifestsRequestRecord[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((request, response) => {
    serve(new URL(request.url ?? '/', 'http://127.0.0.1'), request.headers.authorization, response).catch(
      (error: unknown) => grpcError(response, 500, 2, (error as Error).message),
    );
  });
  const serve = async (url: URL, authorization: string | undefined, response: ServerResponse) => {
    const match = /^\/api\/v1\/applications\/([^/]+)\/manifests$/.exec(url.pathname);
    if (match === null) return grpcError(response, 404, 5, 'Not Found');
    const q = url.searchParams;
    const name = decodeURIComponent(match[1] ?? '');
    const appNamespace = q.get('appNamespace') ?? undefined;
    requests.push({
      name,
      ...(appNamespace === undefined ? {} : { appNamespace }),
      ...(q.get('revision') === null ? {} : { revision: q.get('revision') as string }),
      sourcePositions: q.getAll('sourcePositions'),
      revisions: q.getAll('revisions'),
      authorized: authorization !== undefined,
    });
    const fault = faults.decide('get', 'manifests');
    if (fault?.hang === true) return;
    if (fault !== undefined && fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));
    if (fault?.status !== undefined) {
      const headers =
        fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
      return grpcError(response, fault.status, 14, 'injected fault', headers);
    }
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const grant = token === undefined ? undefined : options.tokens[token];
    if (grant === undefined) return grpcError(response, 401, 16, 'no session information');
    const namespace = appNamespace ?? options.namespace ?? 'argocd';
    const app = options.store.get(APPLICATIONS, namespace, name) as Record<string, unknown> | undefined;
    const project = String((app?.spec as { project?: string } | undefined)?.project ?? 'default');
    const allowed = (p: string) => grant.projects === '*' || grant.projects.includes(p);
    const asked = q.get('project');
    if (app === undefined) {
      if (asked !== null && allowed(asked)) {
        return grpcError(response, 404, 5, `applications.argoproj.io "${name}" not found`);
      }
      return grpcError(response, 403, 7, 'permission denied');
    }
    if (!allowed(project) || (asked !== null && asked !== project))
      return grpcError(response, 403, 7, 'permission denied');
    const positions = q.getAll('sourcePositions').map(Number);
    const revisions = new Map(positions.map((p, i) => [p, q.getAll('revisions')[i] ?? '']));
    const single = q.get('revision');
    if (single !== null && positions.length === 0) revisions.set(1, single);
    const count = Array.isArray((app.spec as { sources?: unknown[] }).sources)
      ? (app.spec as { sources: unknown[] }).sources.length
      : 1;
    if (positions.some((p) => !Number.isInteger(p) || p <= 0 || p > count)) {
      return grpcError(response, 500, 2, 'source position is out of range');
    }
    try {
      const rendered = await renderApplication(app, revisions, options);
      reply(response, 200, {
        manifests: rendered.manifests.map((m) => JSON.stringify(m)),
        namespace: String(
          (app.spec as { destination?: { namespace?: string } }).destination?.namespace ?? '',
        ),
        server: '',
        ...(rendered.revision === undefined ? {} : { revision: rendered.revision }),
        sourceType: rendered.sourceType,
      });
    } catch (error) {
      if (!(error instanceof RenderFailure)) throw error;
      const message = error.grpcCode === 2 ? `error generating manifests: ${error.message}` : error.message;
      grpcError(response, error.httpStatus, error.grpcCode, message);
    }
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    faults,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function grpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  reply(response, status, { error: message, code, message }, headers);
}

function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
