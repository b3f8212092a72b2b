import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { UpstreamError } from '../errors.js';
import { isRedirect, RedirectRefusedError, redirectTarget } from '../http/redirect.js';

export interface GitHttpOptions {
  /** Per request, body included. */
  readonly timeoutMs: number;
  /** Upper bound on one response body (a pack file); beyond it the request is aborted. */
  readonly maxResponseBytes: number;
  /** Injected for tests; the global `fetch` otherwise. */
  readonly fetch?: typeof fetch;
  /**
   * Told when a response body fails midway (size cap, deadline, reset). isomorphic-git swallows such
   * errors while reading a pack, so the caller needs this to report the real cause.
   */
  readonly onBodyError?: (error: UpstreamError) => void;
}

/**
 * The HTTP transport isomorphic-git talks through: global `fetch` with a deadline, a size cap, and no
 * redirects: a redirect could lead off the allow-list, and the request may carry the repository's
 * credentials (after a 401), so a 3xx is an error naming the target origin, and nothing is re-sent.
 */
export function createGitHttpClient(options: GitHttpOptions): HttpClient {
  const doFetch = options.fetch ?? fetch;
  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const signal = AbortSignal.timeout(options.timeoutMs);
      const body = request.body === undefined ? undefined : await collect(request.body);
      let response: Response;
      try {
        response = await doFetch(request.url, {
          method: request.method ?? 'GET',
          headers: request.headers ?? {},
          ...(body === undefined ? {} : { body }),
          redirect: 'manual',
          signal,
        });
      } catch (error) {
        throw transportError(error, options.timeoutMs);
      }
      if (isRedirect(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const refused = new RedirectRefusedError(
          response.status,
          redirectTarget(response.headers.get('location'), request.url),
        );
        throw new UpstreamError(
          `the host answered with a ${refused.message}; list the final URL in the fleet file`,
          {
            retryable: false,
            code: 'git-redirect',
            upstreamStatus: response.status,
            cause: refused,
          },
        );
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return {
        url: request.url,
        method: request.method ?? 'GET',
        statusCode: response.status,
        statusMessage: response.statusText,
        headers,
        body: capped(response, options),
      };
    },
  };
}

async function* capped(response: Response, options: GitHttpOptions): AsyncIterableIterator<Uint8Array> {
  if (response.body === null) return;
  let total = 0;
  try {
    for await (const chunk of response.body) {
      total += chunk.byteLength;
      if (total > options.maxResponseBytes) {
        await response.body.cancel().catch(() => undefined);
        throw new UpstreamError(`git response is larger than ${options.maxResponseBytes} bytes`, {
          retryable: false,
          code: 'git-too-large',
        });
      }
      yield chunk;
    }
  } catch (error) {
    const failure = error instanceof UpstreamError ? error : transportError(error, options.timeoutMs);
    options.onBodyError?.(failure);
    throw failure;
  }
}

/** A body in one piece, as isomorphic-git's transport takes and gives one (an async iterable of chunks). */
export async function* inOnePiece(buffer: Buffer): AsyncIterableIterator<Uint8Array> {
  yield buffer;
}

/** A request or response body read whole. */
export async function collect(body: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

function transportError(error: unknown, timeoutMs: number): UpstreamError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new UpstreamError(`git request timed out after ${timeoutMs} ms`, {
      retryable: true,
      code: 'git-timeout',
      cause: error,
    });
  }
  return new UpstreamError('git host unreachable', {
    retryable: true,
    code: 'git-unreachable',
    cause: error,
  });
}
