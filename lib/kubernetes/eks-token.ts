import { createHash, createHmac, type Hmac, type Hash as NodeHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';

/**
 * aws-iam-authenticator accepts a token for 15 minutes after its `X-Amz-Date`, whatever `X-Amz-Expires`
 * says (STS ignores it; the authenticator only checks it is 0–900 and keeps 60 for old servers).
 */
export const EKS_TOKEN_VALIDITY_MS = 15 * 60_000;

export interface EksTokenRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly now: Date;
}

/**
 * The bearer token EKS (aws-iam-authenticator) accepts: `k8s-aws-v1.` + unpadded base64url of an STS
 * `GetCallerIdentity` URL presigned with SigV4, the cluster name bound in the signed `x-k8s-aws-id` header.
 */
export async function createEksToken(request: EksTokenRequest): Promise<string> {
  const hostname = stsHostname(request.region);
  const signer = new SignatureV4({
    service: 'sts',
    region: request.region,
    credentials: request.credentials,
    sha256: Sha256,
  });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, 'x-k8s-aws-id': request.clusterName },
    },
    { expiresIn: 60, signingDate: request.now },
  );
  const query = Object.entries(presigned.query ?? {})
    .map(([key, value]) => [key, Array.isArray(value) ? String(value[0]) : String(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${rfc3986(key)}=${rfc3986(value)}`)
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

/** The regional STS endpoint (the authenticator only accepts the partition's STS hosts). */
export function stsHostname(region: string): string {
  return region.startsWith('cn-') ? `sts.${region}.amazonaws.com.cn` : `sts.${region}.amazonaws.com`;
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

/** SHA-256 (or HMAC-SHA-256 with a secret) from node:crypto, in the shape the SigV4 signer expects. */
export class Sha256 {
  private readonly hash: NodeHash | Hmac;

  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }

  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function toBuffer(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}
