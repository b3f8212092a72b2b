import http from 'node:http';
import https from 'node:https';
import { createGunzip } from 'node:zlib';
// client-node's HTTP layer only, not the package root: see client-node-cluster-api.ts.
import { type RequestContext, ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { UpstreamError } from '../errors.js';
import { isRedirect, RedirectRefusedError, redirectTarget } from '../http/redirect.js';

export interface SendOptions {
  /**
   * The exchange's bound, answer body included: past it the request is destroyed and fails with a
   * `TimeoutError`, as an `AbortSignal.timeout` would make it fail. The body's read (which starts when the
   * caller asks for it) gets the bound again from its start; a body never asked for ends the exchange
   * there. A plain timer, because a signal per request (its timer, and the abort listeners `http.request`
   * adds for it) costs about as much client CPU as a bare `node:http` PATCH (BENCHMARKS.md, fan-out,
   * 2026-12-04 evening).
   */
  readonly timeoutMs?: number;
  /** A 2xx answer's body is read past, not kept (the caller needs only its status): no copy of it is made. */
  readonly discardOkBody?: boolean;
}

/**
 * One request over the request's agent; a 3xx is refused (never followed). client-node's default transport
 * (node-fetch) follows redirects and keeps `Authorization` when the new host is the same or a subdomain
 * (another port included), so a cluster's bearer token could reach another server; this one sends each
 * request once and names the refused target's origin, never the token.
 */
export function sendOnce(request: RequestContext, options: SendOptions = {}): Promise<ResponseContext> {
  const url = new URL(request.getUrl());
  const body = request.getBody();
  if (body !== undefined && typeof body !== 'string' && !(body instanceof URLSearchParams)) {
    return Promise.reject(new Error('form bodies are not sent to clusters'));
  }
  const payload = body === undefined ? undefined : Buffer.from(body.toString(), 'utf8');
  const headers: Record<string, string> = { 'Accept-Encoding': 'gzip', ...request.getHeaders() };
  if (payload !== undefined) headers['Content-Length'] = String(payload.byteLength);
  const client = url.protocol === 'http:' ? http : https;
  const agent = request.getAgent();
  const signal = request.getSignal();
  return new Promise((resolve, reject) => {
    let timedOut: Error | undefined;
    let failBody: ((error: Error) => void) | undefined;
    const { timeoutMs } = options;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = timeoutError(timeoutMs);
            outgoing.destroy(timedOut);
            failBody?.(timedOut);
          }, timeoutMs);
    timer?.unref();
    const settled = () => clearTimeout(timer);
    const outgoing = client.request(
      url,
      {
        method: request.getHttpMethod(),
        headers,
        ...(agent === undefined ? {} : { agent }),
        ...(signal === undefined ? {} : { signal }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (isRedirect(status)) {
          settled();
          response.resume();
          const refused = new RedirectRefusedError(
            status,
            redirectTarget(response.headers.location, url.href),
          );
          reject(
            new UpstreamError(refused.message, { retryable: false, upstreamStatus: status, cause: refused }),
          );
          return;
        }
        const discard = options.discardOkBody === true && status >= 200 && status < 300;
        // An error before the body is asked for (a reset, the timer) is kept: the read fails with it.
        let early: Error | undefined;
        const keep = (error: Error) => {
          early ??= error;
        };
        response.on('error', keep);
        let data: Promise<Buffer> | undefined;
        // The body is read once it is asked for, not as the headers arrive: a caller bounding the answers it
        // holds in memory (list-pages.ts) takes its slot in between. Until then the socket's buffers fill and
        // the server waits. The read gets the whole bound again from its start: the wait is not its time.
        const read = (): Promise<Buffer> => {
          data ??= new Promise<Buffer>((done, fail) => {
            failBody = (error) => {
              settled();
              fail(timedOut ?? error);
            };
            if (timedOut === undefined) timer?.refresh();
            if (timedOut !== undefined || early !== undefined || response.destroyed) {
              failBody(early ?? Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
              return;
            }
            response.off('error', keep);
            const stream =
              response.headers['content-encoding'] === 'gzip' && !discard
                ? response.pipe(createGunzip())
                : response;
            const chunks: Buffer[] = [];
            if (discard) stream.resume();
            else stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('end', () => {
              settled();
              done(discard ? EMPTY : Buffer.concat(chunks));
            });
            stream.on('error', failBody);
            response.on('error', failBody);
          });
          return data;
        };
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const body = { binary: read, text: async () => (await read()).toString() };
        resolve(new ResponseContext(status, flat, body));
      },
    );
    outgoing.on('error', (error) => {
      settled();
      reject(timedOut ?? error);
    });
    outgoing.end(payload);
  });
}

const EMPTY = Buffer.alloc(0);

/** What `AbortSignal.timeout` fails a request with, by name: the callers classify it as a retryable timeout. */
function timeoutError(ms: number): Error {
  const error = new Error(`The operation was aborted due to timeout (${ms} ms)`);
  error.name = 'TimeoutError';
  return error;
}
