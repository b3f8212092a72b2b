import http from 'node:http';
import https from 'node:https';
import { createGunzip } from 'node:zlib';
// client-node's HTTP layer only, not the package root: see client-node-cluster-api.ts.
import {
  type RequestContext,
  ResponseContext,
  SelfDecodingBody,
} from '@kubernetes/client-node/dist/gen/http/http.js';
import { UpstreamError } from '../errors.js';
import { isRedirect, RedirectRefusedError, redirectTarget } from '../http/redirect.js';

/**
 * One request over the request's agent; a 3xx is refused (never followed). client-node's default transport
 * (node-fetch) follows redirects and keeps `Authorization` when the new host is the same or a subdomain
 * (another port included), so a cluster's bearer token could reach another server; this one sends each
 * request once and names the refused target's origin, never the token.
 */
export function sendOnce(request: RequestContext): Promise<ResponseContext> {
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
        const stream =
          response.headers['content-encoding'] === 'gzip' ? response.pipe(createGunzip()) : response;
        const data = new Promise<Buffer>((done, fail) => {
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => done(Buffer.concat(chunks)));
          stream.on('error', fail);
          response.on('error', fail);
        });
        data.catch(() => undefined);
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve(new ResponseContext(status, flat, new SelfDecodingBody(data)));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}
