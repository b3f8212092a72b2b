import { md5, type SqsQueueState } from './sqs-queue-state.js';
import { checkBatch, checkMessage, SqsRuleError } from './sqs-rules.js';

type Body = Record<string, unknown>;
export type SqsOperation = (queue: SqsQueueState, body: Body) => Promise<unknown> | unknown;

/** The SQS operations the local stack and the SDK use, each on one queue's state, with SQS's checks. */
export function sqsOperations(closing: () => boolean): Record<string, SqsOperation> {
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
