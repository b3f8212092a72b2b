/**
 * SQS's limits on what a sender may send, shared by the in-process queue and the SQS-compatible HTTP
 * double so both refuse what AWS refuses, with the error name the AWS SDK v3 gives the caller.
 */
export const SQS_MAX_MESSAGE_BYTES = 262_144;
export const SQS_MAX_BATCH_ENTRIES = 10;
export const SQS_MAX_DELAY_SECONDS = 900;

/** `name` is what the SDK's error is called; `queryCode` what SQS puts in `x-amzn-query-error`. */
export class SqsRuleError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly queryCode: string = name,
  ) {
    super(message);
  }
}

export interface OutgoingMessage {
  readonly body: string;
  readonly delaySeconds?: number;
}

export function checkMessage(message: OutgoingMessage): void {
  const bytes = Buffer.byteLength(message.body, 'utf8');
  if (bytes === 0) {
    throw new SqsRuleError('MissingParameter', 'The request must contain the parameter MessageBody.');
  }
  if (bytes > SQS_MAX_MESSAGE_BYTES) {
    throw new SqsRuleError(
      'InvalidParameterValue',
      `One or more parameters are invalid. Reason: Message must be shorter than ${SQS_MAX_MESSAGE_BYTES} bytes.`,
    );
  }
  const delay = message.delaySeconds;
  if (delay !== undefined && (!Number.isInteger(delay) || delay < 0 || delay > SQS_MAX_DELAY_SECONDS)) {
    throw new SqsRuleError(
      'InvalidParameterValue',
      `Value ${delay} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= ${SQS_MAX_DELAY_SECONDS}.`,
    );
  }
}

/** The limits of one SendMessageBatch request as a whole (each entry is then checked on its own). */
export function checkBatch(entries: readonly (OutgoingMessage & { readonly id?: string })[]): void {
  if (entries.length === 0) {
    throw new SqsRuleError(
      'EmptyBatchRequest',
      'There should be at least one SendMessageBatchRequestEntry in the request.',
      'AWS.SimpleQueueService.EmptyBatchRequest',
    );
  }
  if (entries.length > SQS_MAX_BATCH_ENTRIES) {
    throw new SqsRuleError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${SQS_MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`,
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    );
  }
  const ids = entries.map((e) => e.id).filter((id) => id !== undefined);
  if (new Set(ids).size !== ids.length) {
    throw new SqsRuleError(
      'BatchEntryIdsNotDistinct',
      'Two or more batch entries in the request have the same Id.',
      'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
    );
  }
  const total = entries.reduce((sum, e) => sum + Buffer.byteLength(e.body, 'utf8'), 0);
  if (total > SQS_MAX_MESSAGE_BYTES) {
    throw new SqsRuleError(
      'BatchRequestTooLong',
      `Batch requests cannot be longer than ${SQS_MAX_MESSAGE_BYTES} bytes. You have sent ${total} bytes.`,
      'AWS.SimpleQueueService.BatchRequestTooLong',
    );
  }
}
