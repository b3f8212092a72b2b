import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { md5, SqsQueueState } from './sqs-queue-state.js';
import { checkBatch, checkMessage, SqsRuleError } from './sqs-rules.js';

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
type Operation = (queue: SqsQueueState, body: Body) => Promise<unknown> | unknown;

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
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
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

function sqsOperations(closing: () => boolean): Record<string, Operation> {
  const delay = (value: unknown) => (value === undefined ? {} : { delaySeconds: Number(value) });
  return {
    SendMessage: (queue, body) => {
      const message = { body: String(body.MessageBody ?? ''), ...delay(body.DelaySeconds) };
      checkMessage(message);
      return { MessageId: queue.send(message), MD5OfMessageBody: md5(message.body) };
    },
    SendMessageBatch: (queue, body) => {
      const entries = ((body.Entries ?? []) as Body[]).map((e) => ({
        id: String(e.Id),
        body: String(e.MessageBody ?? ''),
        ...delay(e.DelaySeconds),
      }));
      checkBatch(entries);
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const entry of entries) {
        try {
          checkMessage(entry);
        } catch (error) {
          const e = error as SqsRuleError;
          Failed.push({ Id: entry.id, SenderFault: true, Code: e.name, Message: e.message });
          continue;
        }
        Successful.push({ Id: entry.id, MessageId: queue.send(entry), MD5OfMessageBody: md5(entry.body) });
      }
      return { Successful, Failed };
    },
    ReceiveMessage: async (queue, body) => {
      const max = Number(body.MaxNumberOfMessages ?? 1);
      const wait = Number(body.WaitTimeSeconds ?? 0);
      if (!Number.isInteger(max) || max < 1 || max > 10) {
        throw new SqsRuleError(
          'InvalidParameterValue',
          `Value ${max} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.`,
        );
      }
      if (!Number.isInteger(wait) || wait < 0 || wait > 20) {
        throw new SqsRuleError(
          'InvalidParameterValue',
          `Value ${wait} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.`,
        );
      }
      const visibility = body.VisibilityTimeout === undefined ? undefined : Number(body.VisibilityTimeout);
      const deadline = Date.now() + wait * 1000;
      for (;;) {
        const messages = queue.receive(max, visibility);
        if (messages.length > 0 || Date.now() >= deadline || closing()) return { Messages: messages };
        // Woken by a send; delayed messages come due on their own, so look again at least every 100 ms.
        await queue.arrival(Math.min(100, deadline - Date.now()));
      }
    },
    DeleteMessage: (queue, body) => {
      queue.delete(String(body.ReceiptHandle ?? ''));
      return {};
    },
    DeleteMessageBatch: (queue, body) => {
      const entries = (body.Entries ?? []) as Body[];
      checkBatch(entries.map((e) => ({ id: String(e.Id), body: ' ' })));
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const e of entries) {
        try {
          queue.delete(String(e.ReceiptHandle ?? ''));
          Successful.push({ Id: e.Id });
        } catch (error) {
          const err = error as SqsRuleError;
          Failed.push({ Id: e.Id, SenderFault: true, Code: err.queryCode, Message: err.message });
        }
      }
      return { Successful, Failed };
    },
    ChangeMessageVisibility: (queue, body) => {
      const seconds = Number(body.VisibilityTimeout);
      if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200) {
        throw new SqsRuleError(
          'InvalidParameterValue',
          `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200.`,
        );
      }
      queue.changeVisibility(String(body.ReceiptHandle ?? ''), seconds);
      return {};
    },
    GetQueueAttributes: (queue, body) => {
      const all = queue.attributes();
      const wanted = (body.AttributeNames ?? ['All']) as string[];
      if (wanted.includes('All')) return { Attributes: all };
      return { Attributes: Object.fromEntries(Object.entries(all).filter(([k]) => wanted.includes(k))) };
    },
  };
}
