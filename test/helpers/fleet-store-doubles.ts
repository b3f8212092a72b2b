import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a double saw: the operation (or object path) and whether the SDK signed the request. */
export interface SeenRequest {
  readonly operation: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly signed: boolean;
}

export interface FleetStoreDouble {
  readonly endpoint: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/** SSM Parameter Store over `awsJson1_1` (`GetParameter` only), with its tiers' size limits. */
export async function startSsmDouble(): Promise<
  FleetStoreDouble & {
    put(name: string, value: string, options?: { secure?: boolean; tier?: 'Standard' | 'Advanced' }): void;
  }
> {
  const parameters = new Map<string, { value: string; secure: boolean; version: number }>();
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
    const operation = String(req.headers['x-amz-target'] ?? '').replace('AmazonSSM.', '');
    const signed = /^AWS4-HMAC-SHA256 Credential=/.test(String(req.headers.authorization ?? ''));
    requests.push({ operation, body, signed });
    if (!signed)
      return json(res, 400, { __type: 'MissingAuthenticationTokenException', message: 'missing auth' });
    if (operation !== 'GetParameter') return json(res, 400, { __type: 'UnknownOperationException' });
    const name = String(body.Name ?? '');
    const found = parameters.get(name);
    if (found === undefined) return json(res, 400, { __type: 'ParameterNotFound', message: '' });
    // A SecureString read without decryption returns its ciphertext, as SSM does.
    const value =
      found.secure && body.WithDecryption !== true
        ? Buffer.from(`kms:${found.value}`).toString('base64')
        : found.value;
    return json(res, 200, {
      Parameter: {
        Name: name,
        Type: found.secure ? 'SecureString' : 'String',
        Value: value,
        Version: found.version,
        DataType: 'text',
        ARN: `arn:aws:ssm:eu-west-1:123456789012:parameter${name.startsWith('/') ? '' : '/'}${name}`,
        LastModifiedDate: Date.now() / 1000,
      },
    });
  });
  const endpoint = await listen(server);
  return {
    endpoint,
    requests,
    put(name, value, options = {}) {
      // PutParameter's limits: 4 KB (Standard) or 8 KB (Advanced) values, 2048-character names.
      const limit = options.tier === 'Advanced' ? 8192 : 4096;
      if (Buffer.byteLength(value) > limit || name.length > 2048)
        throw new Error(`ValidationException: value over ${limit} bytes`);
      const version = (parameters.get(name)?.version ?? 0) + 1;
      parameters.set(name, { value, secure: options.secure ?? false, version });
    },
    close: () => close(server),
  };
}

/** S3 `GetObject`, path-style, with S3's XML errors and its refusal of unsigned requests. */
export async function startS3Double(): Promise<
  FleetStoreDouble & { put(bucket: string, key: string, text: string): void }
> {
  const objects = new Map<string, string>();
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const signed = /^AWS4-HMAC-SHA256 Credential=/.test(String(req.headers.authorization ?? ''));
    requests.push({ operation: `${req.method} ${path}`, body: {}, signed });
    if (!signed) return xmlError(res, 403, 'AccessDenied', 'Access Denied');
    if (req.method !== 'GET') return xmlError(res, 405, 'MethodNotAllowed', 'not allowed');
    const text = objects.get(path.slice(1));
    if (text === undefined) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    const bytes = Buffer.from(text, 'utf8');
    res.writeHead(200, {
      'content-type': 'application/yaml',
      'content-length': bytes.length,
      etag: `"${bytes.length}-${objects.size}"`,
      'last-modified': new Date().toUTCString(),
    });
    res.end(bytes);
  });
  const endpoint = await listen(server);
  return {
    endpoint,
    requests,
    put: (bucket, key, text) => objects.set(`${bucket}/${key}`, text),
    close: () => close(server),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body));
}

function xmlError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
