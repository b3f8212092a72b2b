import { execFileSync, spawn } from 'node:child_process';
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Basic credentials, or a token accepted as `Bearer <token>` or as the Basic password (as GitHub does). */
export type GitServerAuth =
  | { readonly username: string; readonly password: string }
  | { readonly token: string };

export interface GitServerOptions {
  /** Directory holding bare repositories (`<name>.git`). */
  readonly root: string;
  readonly auth?: GitServerAuth;
  /**
   * Let clients fetch any reachable commit by SHA (default true). Off mimics a strict host: a `want` (protocol
   * v1, or a v2 fetch's) that is not a ref tip is answered `ERR upload-pack: not our ref` (git's own HTTP
   * backend always allows reachable SHAs, so the refusal is simulated here).
   */
  readonly allowShaWants?: boolean;
  /** Loopback port; 0 (the default) picks a free one. */
  readonly port?: number;
  /**
   * Speak protocol v2 when the client asks for it (default true). Off mimics a host that only speaks v0/v1:
   * the `Git-Protocol` header is not passed on, so a v2 request is read as a v1 one (and fails as such).
   */
  readonly protocolV2?: boolean;
}

export interface GitServerRequest {
  readonly method: string;
  readonly path: string;
  readonly service: string | undefined;
  readonly protocol: string | undefined;
  readonly status: number;
  /** Bytes of the answer's body sent so far (a fetch's pack, with its side-band framing). */
  readonly bytes: number;
}

export interface GitServer {
  /** The clone URL of `<root>/<name>.git`. */
  url(name: string): string;
  readonly baseUrl: string;
  /** Every request answered so far, in order (401s included). */
  readonly requests: readonly GitServerRequest[];
  resetRequests(): void;
  close(): Promise<void>;
}

const HEADER_END = /\r?\n\r?\n/;

/**
 * The real `git http-backend` behind a small Node HTTP server on 127.0.0.1: smart HTTP, protocol v2 when
 * the client asks for it, optional auth, fetch-by-SHA allowed. For tests and the local stack.
 */
export async function startGitServer(options: GitServerOptions): Promise<GitServer> {
  const backend = join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
  const requests: GitServerRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const record = (status: number) => {
      const entry = {
        method: req.method ?? 'GET',
        path: url.pathname,
        service: url.searchParams.get('service') ?? url.pathname.split('/').pop(),
        protocol: header(req, 'git-protocol'),
        status,
        bytes: 0,
      };
      requests.push(entry);
      return entry;
    };
    if (options.auth !== undefined && !authorized(req, options.auth)) {
      record(401);
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      req.resume();
      return;
    }
    const body = requestBody(req);
    // A v1 want and a v2 fetch's want alike (a v2 `ls-refs` names none, so it passes).
    if (options.allowShaWants === false && req.method === 'POST') {
      void strictWants(options.root, url, body).then(
        (checked) => {
          if (checked.refused === undefined)
            runBackend(backend, options, req, checked.body, res, url, record);
          else refuse(res, checked.refused, record);
        },
        () => {
          record(400);
          res.writeHead(400).end();
        },
      );
      return;
    }
    runBackend(backend, options, req, body, res, url, record);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    url: (name) => `${baseUrl}/${name}.git`,
    requests,
    resetRequests: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request body, inflated when the client gzipped it (git does for large fetch negotiations). */
function requestBody(req: IncomingMessage): Readable {
  return isGzip(req) ? req.pipe(createGunzip()) : req;
}

function isGzip(req: IncomingMessage): boolean {
  return /^(x-)?gzip$/i.test(header(req, 'content-encoding') ?? '');
}

function runBackend(
  backend: string,
  options: GitServerOptions,
  req: IncomingMessage,
  body: Readable,
  res: ServerResponse,
  url: URL,
  record: (status: number) => { bytes: number },
): void {
  const gzip = isGzip(req);
  const allowSha = options.allowShaWants ?? true;
  const protocol = options.protocolV2 === false ? undefined : header(req, 'git-protocol');
  const contentLength = header(req, 'content-length');
  const child = spawn(backend, [], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: options.root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'uploadpack.allowReachableSHA1InWant',
      GIT_CONFIG_VALUE_0: String(allowSha),
      GIT_CONFIG_KEY_1: 'uploadpack.allowAnySHA1InWant',
      GIT_CONFIG_VALUE_1: String(allowSha),
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: header(req, 'content-type') ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      REMOTE_USER: 'git',
      // The body is inflated here, so its length is unknown to the backend: it reads to EOF instead.
      ...(contentLength !== undefined && !gzip && body === req ? { CONTENT_LENGTH: contentLength } : {}),
      ...(protocol === undefined ? {} : { GIT_PROTOCOL: protocol }),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  body.on('error', () => child.kill());
  body.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  child.on('error', () => {
    record(500);
    if (!res.headersSent) res.writeHead(500).end();
  });
  forwardCgiOutput(child.stdout, res, record);
}

/** CGI output is headers (with `Status:`), a blank line, then the body: stream the body through. */
function forwardCgiOutput(
  out: Readable,
  res: ServerResponse,
  record: (status: number) => { bytes: number },
): void {
  let head = Buffer.alloc(0);
  // The request's record once its status is known: the body's bytes are counted on it.
  let started: { bytes: number } | undefined;
  out.on('data', (chunk: Buffer) => {
    if (started !== undefined) {
      started.bytes += chunk.length;
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const text = head.toString('latin1');
    const match = HEADER_END.exec(text);
    if (match === null) return;
    const { status, headers } = parseCgiHeaders(text.slice(0, match.index));
    started = record(status);
    res.writeHead(status, headers);
    const rest = head.subarray(match.index + match[0].length);
    started.bytes += rest.length;
    if (rest.length > 0) res.write(rest);
  });
  out.on('end', () => {
    if (started === undefined) {
      record(502);
      res.writeHead(502).end();
      return;
    }
    res.end();
  });
}

/** Strict mode: a `want` that is no ref tip (v1, or a v2 fetch's) is refused the way upload-pack refuses it. */
async function strictWants(
  root: string,
  url: URL,
  body: Readable,
): Promise<{ body: Readable; refused?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const wants = [...raw.toString('latin1').matchAll(/want ([0-9a-f]{40})/g)].map((m) => m[1] ?? '');
  const name = decodeURIComponent(url.pathname).replace(/\/git-upload-pack$/, '');
  if (name.split('/').includes('..')) throw new Error('path outside the root');
  const repo = join(root, name);
  const tips = new Set(
    execFileSync('git', ['--git-dir', repo, 'for-each-ref', '--format=%(objectname) %(*objectname)'], {
      encoding: 'utf8',
    })
      .split(/\s+/)
      .filter((line) => line !== ''),
  );
  const refused = wants.find((want) => !tips.has(want));
  return refused === undefined ? { body: Readable.from([raw]) } : { body: Readable.from([]), refused };
}

function refuse(res: ServerResponse, sha: string, record: (status: number) => { bytes: number }): void {
  const line = `ERR upload-pack: not our ref ${sha}\n`;
  record(200);
  res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
  res.end(`${(line.length + 4).toString(16).padStart(4, '0')}${line}`);
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
    else headers[name] = value;
  }
  return { status, headers };
}

function authorized(req: IncomingMessage, auth: GitServerAuth): boolean {
  const given = header(req, 'authorization') ?? '';
  const [scheme = '', value = ''] = given.split(/\s+/, 2);
  if ('token' in auth && scheme.toLowerCase() === 'bearer') return same(value, auth.token);
  if (scheme.toLowerCase() !== 'basic') return false;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if ('token' in auth) return username !== '' && same(password, auth.token);
  return same(username, auth.username) && same(password, auth.password);
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
