import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpGetOptions {
  readonly headers: Readonly<Record<string, string>>;
  /** Whole request, body included. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** PEM of the CA to trust (`argocdCaData` decoded); the system's roots otherwise. */
  readonly ca?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Why a request got no HTTP answer; never carries a header (the token) or a body. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'too-large' | 'network',
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/**
 * One GET with a deadline and a size cap. Node's http client never follows redirects, so a 3xx comes
 * back as an answer: the bearer token is only ever sent to the URL the fleet file names.
 */
export function httpGet(url: URL, options: HttpGetOptions): Promise<HttpAnswer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = send(url, {
      method: 'GET',
      headers: { ...options.headers, Accept: 'application/json' },
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    const timer = setTimeout(() => {
      req.destroy(new TransportError(`no answer within ${options.timeoutMs} ms`, 'timeout'));
    }, options.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(
        error instanceof TransportError
          ? error
          : new TransportError(networkMessage(error as NodeJS.ErrnoException), 'network'),
      );
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          req.destroy(new TransportError(`answer larger than ${options.maxBytes} bytes`, 'too-large'));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      response.on('error', () => undefined);
    });
    req.end();
  });
}

function networkMessage(error: NodeJS.ErrnoException): string {
  // The code (ECONNREFUSED, CERT_HAS_EXPIRED, …) says enough; the message may repeat the URL.
  return error.code === undefined ? 'connection failed' : `connection failed (${error.code})`;
}
