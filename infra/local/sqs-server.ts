import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sqsOperations } from './sqs-operations.js';
import { SqsQueueState } from './sqs-queue-state.js';
import { SqsRuleError } from './sqs-rules.js';

export interface SqsServerQueue {
  readonly name: string;
  /** Default 30 s, as SQS. */
  readonly visibilityTimeoutSeconds?: number;
  /** Redrive to the queue's dead-letter list after this many receives (absent: none). */
  readonly maxReceiveCount?: number;
}

export interface SqsServer {
  readonly endpoint: string;
  /** `{endpoint}/000000000000/{name}` */
  queueUrl(name: string): string;
  queue(name: string): SqsQueueState;
  /** Operations served so far, in order (`SendMessage`, `ReceiveMessage`, …). */
  readonly operations: string[];
  close(): Promise<void>;
}

type Body = Record<string, unknown>;

const JSON_TYPE = 'application/x-amz-json-1.0';

/**
 * An SQS-compatible HTTP server on loopback speaking the AWS JSON 1.0 protocol (`X-Amz-Target:
 * AmazonSQS.<Operation>`, query-compatible error codes in `x-amzn-query-error`) that @aws-sdk/client-sqs
 * 3.1164 speaks, with SQS's limits: bodies ≤ 256 KiB, DelaySeconds 0-900, batches ≤ 10 entries and
 * 256 KiB, long polls ≤ 20 s.
 */
export async function startSqsServer(options: { queues: readonly SqsServerQueue[] }): Promise<SqsServer> {
  const states = new Map(
    options.queues.map((q) => [
      q.name,
      new SqsQueueState(q.name, q.visibilityTimeoutSeconds ?? 30, q.maxReceiveCount),
    ]),
  );
  const operations: string[] = [];
  let closing = false;
  const table = sqsOperations(() => closing);
  const server = createServer((req, res) => {
    void serve(req, res);
  });

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
    operations.push(operation);
    try {
      const handler = table[operation];
      if (handler === undefined) {
        throw new SqsRuleError('UnsupportedOperation', `operation ${operation || target} is not served`);
      }
      const body = parseBody(Buffer.concat(chunks).toString('utf8'));
      const name = new URL(String(body.QueueUrl ?? ''), 'http://local').pathname.split('/').pop() ?? '';
      const queue = states.get(name);
      if (queue === undefined) {
        throw new SqsRuleError(
          'QueueDoesNotExist',
          'The specified queue does not exist.',
          'AWS.SimpleQueueService.NonExistentQueue',
        );
      }
      const out = await handler(queue, body);
      res.writeHead(200, { 'content-type': JSON_TYPE }).end(JSON.stringify(out ?? {}));
    } catch (error) {
      const e = error instanceof SqsRuleError ? error : new SqsRuleError('InternalError', String(error));
      const status = e.name === 'InternalError' ? 500 : 400;
      res
        .writeHead(status, {
          'content-type': JSON_TYPE,
          'x-amzn-query-error': `${e.queryCode};${status === 500 ? 'Receiver' : 'Sender'}`,
        })
        .end(JSON.stringify({ __type: `com.amazonaws.sqs#${e.name}`, message: e.message }));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    queueUrl: (name) => `${endpoint}/000000000000/${name}`,
    queue: (name) => {
      const state = states.get(name);
      if (state === undefined) throw new Error(`no queue ${name}`);
      return state;
    },
    operations,
    close: async () => {
      closing = true;
      for (const s of states.values()) s.wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseBody(text: string): Body {
  try {
    return JSON.parse(text || '{}') as Body;
  } catch {
    throw new SqsRuleError('SerializationException', 'The request body is not valid JSON.');
  }
}
