import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What an injected fault does to a matching request. */
export type Fault =
  | 'throttling'
  | 'provisioned-throughput'
  | 'conditional-check-failed'
  /** Accept the request and never answer (until the proxy closes). */
  | 'hang'
  | { readonly status: number; readonly type: string; readonly message: string }
  /** Answer 200 with this JSON instead of asking the target (e.g. a SendMessageBatch with `Failed` entries). */
  | { readonly answer: (body: Record<string, unknown>) => unknown };

export interface FaultRule {
  /** The operation, as in `X-Amz-Target` after the dot: `PutItem`, `UpdateItem`, `SendMessage`, … */
  readonly operation: string;
  /** Only requests whose JSON body matches (e.g. `matchKey('DELIVERY#')`). */
  readonly match?: (body: Record<string, unknown>) => boolean;
  readonly fault: Fault;
  /** How many matching requests get the fault (default 1; `Infinity` until `clear()`). */
  readonly times?: number;
}

export interface FaultHandle {
  /** Matching requests that got the fault so far. */
  readonly hits: number;
}

export interface FaultProxy {
  /** Point `DYNAMODB_ENDPOINT` (or `SQS_ENDPOINT`) here. */
  readonly endpoint: string;
  /** Every operation seen, in order, faulted or not. */
  readonly operations: string[];
  inject(rule: FaultRule): FaultHandle;
  /**
   * Removes every rule. Hung requests are dropped (their connections closed, as a dead endpoint would),
   * or with `{ hung: 'forward' }` passed on late to the target, as a slow one would.
   */
  clear(options?: { hung?: 'drop' | 'forward' }): void;
  close(): Promise<void>;
}

/** Matches a DynamoDB request whose item or key has a `pk` starting with `prefix`. */
export function matchKey(prefix: string): (body: Record<string, unknown>) => boolean {
  return (body) => {
    const item = (body.Item ?? body.Key) as { pk?: { S?: string } } | undefined;
    return item?.pk?.S?.startsWith(prefix) === true;
  };
}

/**
 * A fault-injecting HTTP proxy on loopback in front of an AWS JSON-protocol endpoint (dynalite, the SQS
 * double): requests pass through unchanged unless a rule matches, in which case the proxy answers as the
 * service would (DynamoDB's 400 `ThrottlingException`, `ProvisionedThroughputExceededException`,
 * `ConditionalCheckFailedException`; SQS with its query-compatible error header) or hangs. The SDK's own
 * retries see these as they would see the real service's.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const rules: { rule: FaultRule; hits: number }[] = [];
  const operations: string[] = [];
  const hung: { forward: () => void; drop: () => void }[] = [];
  const sockets = new Set<Socket>();
  const upstream = new URL(target);

  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.slice(target.indexOf('.') + 1);
    operations.push(operation);
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      // not JSON: no rule can match on it
    }
    const active = rules.find(
      (r) =>
        r.rule.operation === operation && r.hits < (r.rule.times ?? 1) && (r.rule.match?.(parsed) ?? true),
    );
    if (active === undefined) return forward(req, body, res);
    active.hits += 1;
    if (active.rule.fault === 'hang') {
      hung.push({ forward: () => forward(req, body, res), drop: () => res.destroy() });
      return;
    }
    const fault = active.rule.fault;
    if (typeof fault === 'object' && 'answer' in fault) {
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify(fault.answer(parsed)));
      return;
    }
    answerFault(res, target.startsWith('AmazonSQS.'), fault);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    operations,
    inject(rule) {
      const entry = { rule, hits: 0 };
      rules.push(entry);
      return {
        get hits() {
          return entry.hits;
        },
      };
    },
    clear(options = {}) {
      rules.splice(0);
      for (const h of hung.splice(0)) (options.hung === 'forward' ? h.forward : h.drop)();
    },
    async close() {
      rules.splice(0);
      hung.splice(0);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type ErrorFault = Exclude<Fault, 'hang' | { readonly answer: unknown }>;

function answerFault(res: ServerResponse, sqs: boolean, fault: ErrorFault) {
  const { status, type, message } =
    fault === 'throttling'
      ? {
          status: 400,
          type: 'ThrottlingException',
          message: 'Rate of requests exceeds the allowed throughput.',
        }
      : fault === 'provisioned-throughput'
        ? {
            status: 400,
            type: 'ProvisionedThroughputExceededException',
            message: 'The level of configured provisioned throughput for the table was exceeded.',
          }
        : fault === 'conditional-check-failed'
          ? {
              status: 400,
              type: 'ConditionalCheckFailedException',
              message: 'The conditional request failed',
            }
          : fault;
  const namespace = sqs ? 'com.amazonaws.sqs' : 'com.amazonaws.dynamodb.v20120810';
  res
    .writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      ...(sqs ? { 'x-amzn-query-error': `${type};${status >= 500 ? 'Receiver' : 'Sender'}` } : {}),
    })
    .end(JSON.stringify({ __type: `${namespace}#${type}`, message }));
}
