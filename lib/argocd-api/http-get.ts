import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpGetOptions {
  readonly headers: Readonly<Record<string, string>>;
  /** Whole request, body included. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Keep-alive connections to one Argo CD (from `createAgent`): a pass of renders shares a few TLS sessions. */
  readonly agent?: HttpAgent;
}

/** One agent per Argo CD instance; `ca` (PEM, `argocdCaData` decoded) replaces the system roots when given. */
export function createAgent(url: string, options: { maxSockets: number; ca?: string }): HttpAgent {
  const common = { keepAlive: true, maxSockets: options.maxSockets };
  return url.startsWith('https:')
    ? new HttpsAgent({ ...common, ...(options.ca === undefined ? {} : { ca: options.ca }) })
    : new HttpAgent(common);
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
    readonly kind: 'timeout' | 'too-large' | 'network' | 'tls',
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
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    });
    const timer = setTimeout(() => {
      req.destroy(new TransportError(`no answer within ${options.timeoutMs} ms`, 'timeout'));
    }, options.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      const code = (error as NodeJS.ErrnoException).code ?? '';
      // A certificate problem does not go away on a second try; a reset connection may.
      const kind = /CERT|SELF_SIGNED|UNABLE_TO|DEPTH_ZERO|ERR_TLS|ERR_SSL|HOSTNAME/.test(code)
        ? 'tls'
        : 'network';
      reject(
        error instanceof TransportError
          ? error
          : new TransportError(networkMessage(error as NodeJS.ErrnoException), kind),
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
