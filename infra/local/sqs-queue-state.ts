import { createHash, randomUUID } from 'node:crypto';
import { type OutgoingMessage, SqsRuleError } from './sqs-rules.js';

interface Stored {
  readonly messageId: string;
  readonly body: string;
  readonly sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
}

export interface ReceivedMessage {
  readonly MessageId: string;
  readonly ReceiptHandle: string;
  readonly MD5OfBody: string;
  readonly Body: string;
  readonly Attributes: Record<string, string>;
}

export function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/**
 * One standard queue's state as SQS keeps it: delays, receipt handles that change with each receive, a
 * visibility timeout, and redrive to `deadLetters` after `maxReceiveCount` receives. Long polls wait on
 * `arrival()`.
 */
export class SqsQueueState {
  readonly deadLetters: { messageId: string; body: string; receiveCount: number }[] = [];
  private readonly messages = new Map<string, Stored>();
  private waiters: (() => void)[] = [];

  constructor(
    readonly name: string,
    readonly visibilityTimeoutSeconds: number,
    private readonly maxReceiveCount: number | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  send(message: OutgoingMessage): string {
    const messageId = randomUUID();
    const sentAt = this.now();
    this.messages.set(messageId, {
      messageId,
      body: message.body,
      sentAt,
      visibleAt: sentAt + (message.delaySeconds ?? 0) * 1000,
      receiveCount: 0,
    });
    this.wake();
    return messageId;
  }

  receive(max: number, visibilitySeconds: number = this.visibilityTimeoutSeconds): ReceivedMessage[] {
    const now = this.now();
    const out: ReceivedMessage[] = [];
    for (const m of this.messages.values()) {
      if (out.length >= max) break;
      if (m.visibleAt > now) continue;
      if (this.maxReceiveCount !== undefined && m.receiveCount >= this.maxReceiveCount) {
        this.messages.delete(m.messageId);
        this.deadLetters.push({ messageId: m.messageId, body: m.body, receiveCount: m.receiveCount });
        continue;
      }
      m.receiveCount += 1;
      m.firstReceivedAt ??= now;
      m.visibleAt = now + visibilitySeconds * 1000;
      m.receiptHandle = `${m.messageId}#${randomUUID()}`;
      out.push({
        MessageId: m.messageId,
        ReceiptHandle: m.receiptHandle,
        MD5OfBody: md5(m.body),
        Body: m.body,
        Attributes: {
          ApproximateReceiveCount: String(m.receiveCount),
          SentTimestamp: String(m.sentAt),
          ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt),
          SenderId: 'local',
        },
      });
    }
    return out;
  }

  delete(receiptHandle: string): void {
    const m = this.byHandle(receiptHandle);
    // SQS accepts deleting a message that is gone already; only a malformed handle is an error.
    if (m !== undefined) this.messages.delete(m.messageId);
  }

  changeVisibility(receiptHandle: string, seconds: number): void {
    const m = this.byHandle(receiptHandle);
    if (m === undefined || m.visibleAt <= this.now()) {
      throw new SqsRuleError(
        'MessageNotInflight',
        'The message referred to is not in flight.',
        'AWS.SimpleQueueService.MessageNotInflight',
      );
    }
    m.visibleAt = this.now() + seconds * 1000;
    if (seconds === 0) this.wake();
  }

  attributes(): Record<string, string> {
    const now = this.now();
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const m of this.messages.values()) {
      if (m.visibleAt <= now) visible++;
      else if (m.receiveCount > 0) inFlight++;
      else delayed++;
    }
    return {
      ApproximateNumberOfMessages: String(visible),
      ApproximateNumberOfMessagesNotVisible: String(inFlight),
      ApproximateNumberOfMessagesDelayed: String(delayed),
      VisibilityTimeout: String(this.visibilityTimeoutSeconds),
      MaximumMessageSize: '262144',
      DelaySeconds: '0',
      QueueArn: `arn:aws:sqs:local:000000000000:${this.name}`,
    };
  }

  /** Resolves when a message may have become receivable (a send, a visibility change) or after `ms`. */
  arrival(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      function done() {
        resolve();
      }
      this.waiters.push(waiter);
    });
  }

  /** Wakes every long poll (a closing server answers them at once). */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private byHandle(receiptHandle: string): Stored | undefined {
    const [messageId] = receiptHandle.split('#');
    if (messageId === undefined || !receiptHandle.includes('#')) {
      throw new SqsRuleError(
        'ReceiptHandleIsInvalid',
        `The input receipt handle "${receiptHandle}" is not a valid receipt handle.`,
        'ReceiptHandleIsInvalid',
      );
    }
    const m = this.messages.get(messageId);
    return m?.receiptHandle === receiptHandle ? m : undefined;
  }
}
