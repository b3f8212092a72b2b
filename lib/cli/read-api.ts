import type { AwsCredentialsProvider } from '../kubernetes/eks-token.js';
import { signedHeaders } from './sigv4.js';

export type ReadApiAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'sigv4'; readonly region: string; readonly credentials: AwsCredentialsProvider };

export interface ReadApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

export class ReadApiError extends Error {}

type Query = Record<string, string | undefined>;

/**
 * The API's client: GETs from the read API and POST/DELETEs to the control routes; a query value that is
 * undefined is left out. Redirects are never followed.
 */
export function createReadApi(baseUrl: string, auth: ReadApiAuth, fetchImpl: typeof fetch = fetch) {
  async function send(method: string, path: string, query: Query, body?: unknown): Promise<ReadApiAnswer> {
    const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(key, value);
    // RFC 3986 encoding (%20, not +), the form SigV4 canonicalises, so the signed query is the sent one.
    url.search = url.search.replace(/\+/g, '%20');
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (text !== undefined) headers['content-type'] = 'application/json';
    if (auth.kind === 'bearer') headers.authorization = `Bearer ${auth.token}`;
    if (auth.kind === 'sigv4')
      Object.assign(
        headers,
        await signedHeaders(url, { ...auth, method, headers, ...(text ? { body: text } : {}) }),
      );
    let response: Response;
    try {
      // A redirect would carry the credentials to another origin: refuse it instead.
      response = await fetchImpl(url, {
        method,
        headers,
        ...(text === undefined ? {} : { body: text }),
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new ReadApiError(`cannot reach ${url.origin} (${causeOf(error)})`);
    }
    if (response.status >= 300 && response.status < 400) {
      throw new ReadApiError(`${url.origin} answered a redirect (${response.status}); pass the final URL`);
    }
    const answer = await response.text();
    let parsed: unknown = answer;
    try {
      parsed = JSON.parse(answer);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed };
  }
  return {
    get: (path: string, query: Query = {}) => send('GET', path, query),
    post: (path: string, body?: unknown) => send('POST', path, {}, body),
    delete: (path: string) => send('DELETE', path, {}),
  };
}

export type ReadApi = ReturnType<typeof createReadApi>;

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** 127.0.0.0/8, ::1 or localhost (the URL parser has already normalised `127.1`, `0x7f.1`, `[::1]`). */
export function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || LOOPBACK_V4.test(url.hostname);
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
