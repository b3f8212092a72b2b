import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEksToken, EKS_TOKEN_PREFIX } from '../../../lib/kubernetes/eks-token.js';
import { createEksTokenSource, EKS_TOKEN_REUSE_MS } from '../../../lib/kubernetes/eks-token-source.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const now = new Date('2024-01-02T03:04:05.678Z');

function decode(token: string): URL {
  expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  const body = token.slice(EKS_TOKEN_PREFIX.length);
  expect(body).toMatch(/^[A-Za-z0-9_-]+$/);
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

/** SigV4 computed here from its definition, independently of the signer under test. */
function expectedSignature(url: URL, clusterName: string, secret: string): string {
  const rfc3986 = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = [...url.searchParams.entries()]
    .filter(([key]) => key !== 'X-Amz-Signature')
    .map(([key, value]) => `${rfc3986(key)}=${rfc3986(value)}`)
    .sort()
    .join('&');
  const canonical = [
    'GET',
    '/',
    query,
    `host:${url.hostname}\nx-k8s-aws-id:${clusterName}\n`,
    'host;x-k8s-aws-id',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = `${date.slice(0, 8)}/eu-west-1/sts/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, createHash('sha256').update(canonical).digest('hex')].join(
    '\n',
  );
  let key: Buffer = Buffer.from(`AWS4${secret}`);
  for (const part of [date.slice(0, 8), 'eu-west-1', 'sts', 'aws4_request']) {
    key = createHmac('sha256', key).update(part).digest();
  }
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('createEksToken', () => {
  it('presigns GetCallerIdentity on the regional STS host with the cluster header signed', async () => {
    const token = await createEksToken({ clusterName: 'hub-eu', region: 'eu-west-1', credentials, now });
    const url = decode(token);
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('https://sts.eu-west-1.amazonaws.com/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20240102/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20240102T030405Z',
      'X-Amz-Expires': '60',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
      'X-Amz-Signature': expectedSignature(url, 'hub-eu', credentials.secretAccessKey),
    });
  });

  it('is deterministic for a fixed clock and fixed credentials', async () => {
    const request = { clusterName: 'hub-eu', region: 'eu-west-1', credentials, now };
    expect(await createEksToken(request)).toBe(await createEksToken(request));
  });

  it('carries and signs the session token of temporary credentials', async () => {
    const token = await createEksToken({
      clusterName: 'hub-eu',
      region: 'eu-west-1',
      credentials: { ...credentials, sessionToken: 'FwoGZXIvYXdzE+/token==' },
      now,
    });
    const url = decode(token);
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('FwoGZXIvYXdzE+/token==');
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(url, 'hub-eu', credentials.secretAccessKey),
    );
  });

  it('has no base64 padding whatever the URL length', async () => {
    for (const clusterName of ['a', 'ab', 'abc', 'abcd']) {
      const token = await createEksToken({ clusterName, region: 'eu-west-1', credentials, now });
      expect(token).not.toContain('=');
    }
  });

  it('uses the China partition host for cn- regions', async () => {
    const token = await createEksToken({ clusterName: 'c', region: 'cn-north-1', credentials, now });
    expect(decode(token).host).toBe('sts.cn-north-1.amazonaws.com.cn');
  });
});

describe('createEksTokenSource', () => {
  function setup(expiration?: Date) {
    let time = now.getTime();
    let calls = 0;
    const source = createEksTokenSource({
      clusterName: 'hub-eu',
      region: 'eu-west-1',
      clock: { now: () => new Date(time) },
      credentials: async () => {
        calls++;
        return { ...credentials, ...(expiration === undefined ? {} : { expiration }) };
      },
    });
    return {
      source,
      advance: (ms: number) => {
        time += ms;
      },
      calls: () => calls,
    };
  }

  it('reuses a token until it is ten minutes old, then signs a new one', async () => {
    const { source, advance, calls } = setup();
    const first = await source.token();
    advance(EKS_TOKEN_REUSE_MS - 1);
    expect(await source.token()).toBe(first);
    advance(1);
    const second = await source.token();
    expect(second).not.toBe(first);
    expect(calls()).toBe(2);
  });

  it('renews before the credentials themselves expire', async () => {
    const { source, advance } = setup(new Date(now.getTime() + 3 * 60_000));
    const first = await source.token();
    advance(2 * 60_000);
    expect(await source.token()).not.toBe(first);
  });

  it('signs once for concurrent callers and again after invalidate', async () => {
    const { source, calls } = setup();
    const [a, b] = await Promise.all([source.token(), source.token()]);
    expect(a).toBe(b);
    expect(calls()).toBe(1);
    source.invalidate();
    await source.token();
    expect(calls()).toBe(2);
  });
});
