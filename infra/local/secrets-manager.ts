import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secretsManagerOperations } from './secrets-manager-operations.js';
import {
  type Caller,
  DoubleError,
  type SeedSecret,
  type StoredSecret,
  storeSecret,
} from './secrets-manager-state.js';
import { assumeRoleXml, stsErrorXml } from './sts.js';

export type { SeedSecret, SeedVersion } from './secrets-manager-state.js';

export interface LocalSecretsManagerOptions {
  readonly secrets?: readonly SeedSecret[];
  readonly region?: string;
  readonly accountId?: string;
  readonly port?: number;
  /** Caps every ListSecrets/BatchGetSecretValue page, to exercise pagination. */
  readonly pageSize?: number;
  /** Operations every caller is denied (e.g. `BatchGetSecretValue` without that IAM permission). */
  readonly deniedOperations?: readonly string[];
  /** Roles the STS double refuses to let anyone assume. */
  readonly deniedRoles?: readonly string[];
  /** Holds every STS answer this long (a slow or hung STS). */
  readonly stsDelayMs?: number;
}

export interface RecordedRequest {
  readonly service: 'secretsmanager' | 'sts';
  readonly operation: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly accessKeyId?: string;
  /** The signing region from the request's credential scope. */
  readonly region?: string;
}

export interface LocalSecretsManager {
  /** Serves Secrets Manager (`awsJson1_1`) and STS AssumeRole (query protocol) on one loopback port. */
  readonly endpoint: string;
  readonly requests: RecordedRequest[];
  count(operation: string): number;
  /** The role the STS double issued these credentials for. */
  roleOf(accessKeyId: string | undefined): string | undefined;
  put(seed: SeedSecret): void;
  remove(name: string): void;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/x-amz-json-1.1';

export async function startLocalSecretsManager(
  options: LocalSecretsManagerOptions = {},
): Promise<LocalSecretsManager> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const secrets = new Map<string, StoredSecret>();
  const put = (seed: SeedSecret) => secrets.set(seed.name, storeSecret(seed, region, accountId));
  for (const seed of options.secrets ?? []) put(seed);
  const requests: RecordedRequest[] = [];
  const issued = new Map<string, string>();
  let requestCounter = 0;

  const operations = secretsManagerOperations(secrets, options);

  const handleSecretsManager = (operation: string, raw: string, caller: Caller, res: ServerResponse) => {
    const body = parseBody(raw);
    requests.push({ service: 'secretsmanager', operation, body, ...callerFields(caller) });
    const handler = operations[operation];
    if (!handler)
      throw new DoubleError(
        'UnknownOperationException',
        `operation ${operation} is not served by the local double`,
      );
    if (options.deniedOperations?.includes(operation)) {
      throw new DoubleError(
        'AccessDeniedException',
        `User: ${caller.role ?? 'local'} is not authorized to perform: secretsmanager:${operation}`,
      );
    }
    send(res, 200, JSON_TYPE, JSON.stringify(handler(body, caller)));
  };

  const handleSts = async (raw: string, caller: Caller, res: ServerResponse) => {
    if (options.stsDelayMs) await new Promise((resolve) => setTimeout(resolve, options.stsDelayMs));
    if (res.destroyed) return;
    const form = new URLSearchParams(raw);
    const action = form.get('Action') ?? '';
    const roleArn = form.get('RoleArn') ?? '';
    requests.push({
      service: 'sts',
      operation: action,
      body: Object.fromEntries(form),
      ...callerFields(caller),
    });
    if (action !== 'AssumeRole')
      return stsError(res, 400, 'InvalidAction', `${action} is not served by the local double`);
    if (options.deniedRoles?.includes(roleArn)) {
      return stsError(
        res,
        403,
        'AccessDenied',
        `User: ${caller.role ?? 'local'} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    }
    const accessKeyId = `ASIALOCAL${String(issued.size + 1).padStart(11, '0')}`;
    issued.set(accessKeyId, roleArn);
    const session = form.get('RoleSessionName') ?? 'session';
    send(
      res,
      200,
      'text/xml',
      assumeRoleXml({ accessKeyId, roleArn, session, requestId: `local-${++requestCounter}` }),
    );
  };

  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => {
        const caller = callerOf(req, issued);
        const target = String(req.headers['x-amz-target'] ?? '');
        if (req.method === 'POST' && target.startsWith('secretsmanager.')) {
          return handleSecretsManager(target.slice('secretsmanager.'.length), raw, caller, res);
        }
        if (
          req.method === 'POST' &&
          String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
        ) {
          return handleSts(raw, caller, res);
        }
        throw new DoubleError(
          'UnknownOperationException',
          'expected POST / with X-Amz-Target or an STS query',
        );
      })
      .catch((error: unknown) => {
        const e =
          error instanceof DoubleError ? error : new DoubleError('InternalServiceError', String(error), 500);
        send(res, e.status, JSON_TYPE, JSON.stringify({ __type: e.type, message: e.message }));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    count: (operation) => requests.filter((r) => r.operation === operation).length,
    roleOf: (accessKeyId) => (accessKeyId === undefined ? undefined : issued.get(accessKeyId)),
    put,
    remove: (name) => void secrets.delete(name),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  function send(res: ServerResponse, status: number, type: string, body: string): void {
    res.writeHead(status, { 'content-type': type, 'x-amzn-requestid': `local-${++requestCounter}` });
    res.end(body);
  }

  function stsError(res: ServerResponse, status: number, code: string, message: string): void {
    send(res, status, 'text/xml', stsErrorXml(code, message, `local-${requestCounter}`));
  }
}

function callerOf(req: IncomingMessage, issued: ReadonlyMap<string, string>): Caller & { region?: string } {
  const auth = String(req.headers.authorization ?? '');
  const scope = /Credential=([^/]+)\/\d+\/([^/]+)\//.exec(auth);
  if (!scope?.[1]) return {};
  const role = issued.get(scope[1]);
  return { accessKeyId: scope[1], ...(scope[2] ? { region: scope[2] } : {}), ...(role ? { role } : {}) };
}

function callerFields(caller: Caller & { region?: string }): { accessKeyId?: string; region?: string } {
  return {
    ...(caller.accessKeyId ? { accessKeyId: caller.accessKeyId } : {}),
    ...(caller.region ? { region: caller.region } : {}),
  };
}

function parseBody(raw: string): Record<string, unknown> {
  try {
    const body: unknown = raw === '' ? {} : JSON.parse(raw);
    if (typeof body === 'object' && body !== null && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new DoubleError('SerializationException', 'request body is not a JSON object');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
