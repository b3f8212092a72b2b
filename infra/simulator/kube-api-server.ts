import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KUBE_RESOURCES, type KubeResource } from '../../lib/kubernetes/resources.js';
import { AccessControl, type TokenIdentity } from './access-control.js';
import { FaultInjector, RequestLog } from './faults.js';
import { answerJson, handleResource } from './kube-handlers.js';
import { parseRoute } from './kube-routes.js';
import { KubeStatusError, kubeStatus } from './kube-status.js';
import { serveWatch } from './kube-watch.js';
import { ResourceStore } from './resource-store.js';

const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface KubeApiServerOptions {
  /** Bearer tokens and what each may do. */
  readonly tokens?: Readonly<Record<string, TokenIdentity>>;
  /**
   * Who a request without an Authorization header is (kube-apiserver's --anonymous-auth); default: 401.
   * kubectl never sends a bearer token over plain http, so a local stack enables this for it.
   */
  readonly anonymous?: TokenIdentity;
  /** Served resources (default: every kind the orchestrator uses). */
  readonly resources?: readonly KubeResource[];
  /** An existing store (default: a new empty one). */
  readonly store?: ResourceStore;
  readonly port?: number;
  /** For fault `failRate` draws. */
  readonly random?: () => number;
  /** Serve HTTPS with this certificate (PEM), as a real API server does (the url is then `https://`). */
  readonly tls?: { readonly cert: string; readonly key: string };
}

export interface KubeApiServer {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`) */
  readonly url: string;
  readonly store: ResourceStore;
  readonly access: AccessControl;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  close(): Promise<void>;
}

/**
 * A Kubernetes-API-compatible server on loopback, good enough for `@kubernetes/client-node` and kubectl:
 * discovery, list/get/watch/create/update/patch/delete on the registered resources, `Status` errors,
 * bearer tokens with RBAC-style rules, fault injection and a request log.
 */
export async function startKubeApiServer(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const store = options.store ?? new ResourceStore(options.resources ?? KUBE_RESOURCES);
  const access = new AccessControl(options.tokens);
  const faults = new FaultInjector(options.random);
  const requests = new RequestLog();
  const timers = new Set<NodeJS.Timeout>();
  const watches = new Set<() => void>();

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const route = parseRoute(request.method ?? 'GET', url, store);
    const verb = route.type === 'resource' ? route.verb : 'get';
    const plural = route.type === 'resource' ? route.resource.plural : 'discovery';
    const fault = faults.decide(verb, plural);
    requests.record({
      verb,
      resource: plural,
      ...(route.type === 'resource' && route.namespace !== undefined ? { namespace: route.namespace } : {}),
      ...(route.type === 'resource' && route.name !== undefined ? { name: route.name } : {}),
      ...(fault !== undefined && (fault.hang || fault.status !== undefined) ? { faulted: true } : {}),
      at: Date.now(),
    });
    if (fault !== undefined) {
      if (fault.hang) return; // the socket stays open until the client gives up or the server closes
      if (fault.latencyMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, fault.latencyMs);
          timers.add(timer);
        });
      }
      if (fault.status !== undefined) {
        const headers =
          fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
        return reply(response, fault.status, kubeStatus(fault.status, 'injected fault'), headers);
      }
    }
    const identity =
      request.headers.authorization === undefined
        ? options.anonymous
        : access.authenticate(request.headers.authorization);
    if (identity === undefined) return reply(response, 401, kubeStatus(401, 'Unauthorized'));
    if (route.type === 'discovery') {
      return route.body === undefined
        ? reply(response, 404, kubeStatus(404, 'the server could not find the requested resource'))
        : reply(response, 200, route.body);
    }
    if (route.type === 'unknown') {
      return reply(response, 404, kubeStatus(404, 'the server could not find the requested resource'));
    }
    const resourcePath = route.subresource === undefined ? plural : `${plural}/${route.subresource}`;
    const allowed = access.authorize(identity, {
      verb,
      group: route.resource.group,
      resource: resourcePath,
      namespace: route.namespace,
      name: route.name,
    });
    if (!allowed) {
      const where =
        route.namespace === undefined ? 'at the cluster scope' : `in the namespace "${route.namespace}"`;
      const what =
        route.name === undefined
          ? `${plural}.${route.resource.group}`
          : `${plural}.${route.resource.group} "${route.name}"`;
      const message = `${what} is forbidden: User "${identity.user}" cannot ${verb} resource "${resourcePath}" in API group "${route.resource.group}" ${where}`;
      return reply(
        response,
        403,
        kubeStatus(403, message, { details: { group: route.resource.group, kind: plural } }),
      );
    }
    if (verb === 'watch') {
      const stop = serveWatch(store, route.resource, route.namespace, url.searchParams, response);
      watches.add(stop);
      response.on('close', () => watches.delete(stop));
      return;
    }
    const body = ['POST', 'PUT', 'PATCH'].includes(request.method ?? '')
      ? await readJson(request)
      : undefined;
    const answer = handleResource(store, {
      verb,
      resource: route.resource,
      ...(route.namespace === undefined ? {} : { namespace: route.namespace }),
      ...(route.name === undefined ? {} : { name: route.name }),
      query: url.searchParams,
      contentType: request.headers['content-type'] ?? '',
      body,
    });
    replyJson(response, answer.status, answerJson(store, answer));
  };

  const listener: RequestListener = (request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (error instanceof KubeStatusError) return reply(response, error.status.code, error.status);
      reply(response, 500, kubeStatus(500, `simulator error: ${(error as Error).message}`));
    });
  };
  const server =
    options.tls === undefined
      ? createServer(listener)
      : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    store,
    access,
    faults,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const stop of watches) stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
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

function replyJson(response: ServerResponse, status: number, json: Buffer): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': json.length });
  response.end(json);
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new KubeStatusError(413, 'the request body is too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new KubeStatusError(400, 'the request body is empty');
  try {
    return JSON.parse(text);
  } catch {
    throw new KubeStatusError(400, 'the request body is not valid JSON');
  }
}
