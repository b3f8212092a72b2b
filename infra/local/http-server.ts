import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export interface LocalRoutes {
  /** `POST /webhooks/{provider}` */
  readonly webhook: HttpHandler;
  /** The read API's `GET` routes and the control routes (`POST`, `DELETE`). */
  readonly api: HttpHandler;
  /** Pages of the local stack itself (`/_local/…`), tried first; undefined passes the request on. */
  readonly local?: (
    method: string,
    path: string,
  ) => { status: number; contentType: string; body: string } | undefined;
}

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded)|text\/)/i;

/**
 * Serves the Lambda HTTP handlers the way API Gateway's HTTP API (payload 2.0) calls them: the same event
 * shape, text bodies as text and others base64-encoded. A body over `maxBodyBytes` is refused with 413
 * while it streams in, before any of it is parsed.
 */
export async function startLocalHttpServer(
  routes: LocalRoutes,
  options: { port: number; host?: string; maxBodyBytes: number },
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void serve(req, res, routes, options.maxBodyBytes);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, routes: LocalRoutes, maxBodyBytes: number) {
  const url = new URL(req.url ?? '/', 'http://local');
  const method = req.method ?? 'GET';
  const page = routes.local?.(method, url.pathname);
  if (page !== undefined) {
    res.writeHead(page.status, { 'content-type': page.contentType, 'cache-control': 'no-store' });
    res.end(method === 'HEAD' ? '' : page.body);
    return;
  }
  const webhook = /^\/webhooks\/([^/]+)\/?$/.exec(url.pathname);
  const handler = webhook !== null ? (method === 'POST' ? routes.webhook : undefined) : routes.api;
  if (handler === undefined) {
    send(res, { statusCode: webhook === null ? 404 : 405, body: JSON.stringify({ error: 'no-route' }) });
    return;
  }
  const body = await readBody(req, maxBodyBytes);
  if (body === 'too-large') {
    send(res, {
      statusCode: 413,
      body: JSON.stringify({ error: 'payload-too-large' }),
      headers: { connection: 'close' },
    });
    return;
  }
  const contentType = String(req.headers['content-type'] ?? '');
  const asText = body.length === 0 || TEXT_TYPES.test(contentType);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: webhook === null ? `${method} ${url.pathname}` : 'POST /webhooks/{provider}',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: flattenHeaders(req),
    // API Gateway (payload 2.0) hands cookies over in `cookies`, not as a header.
    ...(req.headers.cookie === undefined ? {} : { cookies: req.headers.cookie.split(/;\s*/) }),
    ...(url.search === '' ? {} : { queryStringParameters: Object.fromEntries(url.searchParams) }),
    ...(webhook === null ? {} : { pathParameters: { provider: decodeURIComponent(webhook[1] ?? '') } }),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: String(req.headers.host ?? 'localhost'),
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: String(req.headers['user-agent'] ?? ''),
      },
      requestId: randomUUID(),
      routeKey: 'local',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    body: asText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !asText,
  };
  try {
    send(res, await handler(event));
  } catch {
    send(res, { statusCode: 500, body: JSON.stringify({ error: 'internal', message: 'internal error' }) });
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie')
      headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  if (res.headersSent) return;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.body ?? '');
}
