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

/** GETs from the read API; a query value that is undefined is left out. Redirects are never followed. */
export function createReadApi(baseUrl: string, auth: ReadApiAuth, fetchImpl: typeof fetch = fetch) {
  return {
    async get(path: string, query: Record<string, string | undefined> = {}): Promise<ReadApiAnswer> {
      const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      for (const [key, value] of Object.entries(query))
        if (value !== undefined) url.searchParams.set(key, value);
      // RFC 3986 encoding (%20, not +), the form SigV4 canonicalises, so the signed query is the sent one.
      url.search = url.search.replace(/\+/g, '%20');
      const headers: Record<string, string> = { accept: 'application/json' };
      if (auth.kind === 'bearer') headers.authorization = `Bearer ${auth.token}`;
      if (auth.kind === 'sigv4') Object.assign(headers, await signedHeaders(url, auth));
      let response: Response;
      try {
        // A redirect would carry the credentials to another origin: refuse it instead.
        response = await fetchImpl(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
      } catch (error) {
        throw new ReadApiError(`cannot reach ${url.origin} (${causeOf(error)})`);
      }
      if (response.status >= 300 && response.status < 400) {
        throw new ReadApiError(`${url.origin} answered a redirect (${response.status}); pass the final URL`);
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body };
    },
  };
}

export type ReadApi = ReturnType<typeof createReadApi>;

/** Which credentials go with a URL: API_TOKEN when set, nothing for loopback, else SigV4. */
export function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(url.hostname) || url.hostname.startsWith('127.');
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
