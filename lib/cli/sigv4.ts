import { SignatureV4 } from '@smithy/signature-v4';
import { type AwsCredentialsProvider, Sha256 } from '../kubernetes/eks-token.js';

/**
 * SigV4 headers for a request to an API Gateway HTTP API behind IAM auth (service `execute-api`). The
 * request is signed exactly as it will be sent: the caller builds its URL and body from the same values.
 */
export async function signedHeaders(
  url: URL,
  options: {
    region: string;
    credentials: AwsCredentialsProvider;
    now?: Date;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: 'execute-api',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  const contentType = options.headers?.['content-type'];
  const signed = await signer.sign(
    {
      method: options.method ?? 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query,
      headers: { host: url.host, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
      ...(options.body === undefined ? {} : { body: options.body }),
    },
    options.now === undefined ? {} : { signingDate: options.now },
  );
  // fetch sets Host itself (the same value); every other signed header is sent as signed.
  const { host: _host, ...headers } = signed.headers;
  return headers;
}

/** The region of an `execute-api` URL (`<id>.execute-api.<region>.amazonaws.com`), if it names one. */
export function regionOfApiUrl(url: URL): string | undefined {
  return /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(url.hostname)?.[1];
}
