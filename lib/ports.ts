/**
 * The small interfaces the domain talks through. Adapters (DynamoDB, Kubernetes, Secrets Manager,
 * Slack, Git, SQS) implement them; tests pass fakes or local protocol doubles.
 */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export type LogFields = Record<string, unknown>;

/** One structured logger; messages are short and lowercase, fields never hold secret values. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds these keys to every line (request-scoped: delivery, repo, sha, cluster, app). */
  child(fields: LogFields): Logger;
}

export interface SendOptions {
  readonly delaySeconds?: number;
  /** SQS FIFO-style de-duplication id; the standard queue ignores it. */
  readonly deduplicationId?: string;
}

/** A queue with SQS semantics: at-least-once, delay, visibility timeout, dead-letter after N receives. */
export interface Queue<M> {
  send(message: M, options?: SendOptions): Promise<void>;
  /**
   * Many messages at once (SQS SendMessageBatch: chunks of at most 10 entries and 256 KiB). Resolves when
   * every entry is on the queue; throws naming the entries that still failed after a few tries.
   */
  sendBatch(entries: readonly BatchEntry<M>[]): Promise<void>;
}

export interface BatchEntry<M> {
  readonly message: M;
  readonly delaySeconds?: number;
}

/** Message bodies too large for a queue message, kept by content hash until the queue has let go of them. */
export interface PayloadStore {
  /** Stores `body` and returns its key (the SHA-256 of the body, hex). */
  put(body: string): Promise<string>;
  /** The body stored under `key`; throws when it is missing or does not match its hash. */
  get(key: string): Promise<string>;
}

/** Reads a secret string from AWS Secrets Manager (cached by the adapter). */
export interface SecretReader {
  getSecretString(secretId: string): Promise<string>;
}

/** What the webhook function remembers about an accepted push delivery (never its body). */
export interface DeliveryRecord {
  readonly provider: string;
  readonly deliveryId: string;
  readonly event: string;
  readonly repo: string;
  readonly ref: string;
  readonly sha: string;
  readonly receivedAt: string;
}

/** `received`: recorded, its message not (yet) enqueued; `enqueued`: the push is on the queue. */
export type DeliveryState = 'received' | 'enqueued';

/**
 * `claimed`: this caller enqueues (a new delivery, or one recorded earlier but never enqueued whose lease
 * ended); `enqueued`: a duplicate; `busy`: another caller holds the lease and is enqueueing right now.
 */
export type DeliveryClaim = 'claimed' | 'enqueued' | 'busy';

export interface DeliveryStore {
  /** Conditional write keyed on the delivery id, taking a short lease on a delivery not yet enqueued. */
  claim(record: DeliveryRecord): Promise<DeliveryClaim>;
  /** The push is on the queue: from now on a redelivery is a duplicate. */
  markEnqueued(provider: string, deliveryId: string): Promise<void>;
  /** Enqueueing failed: end the lease so the provider's redelivery enqueues at once. */
  release(provider: string, deliveryId: string): Promise<void>;
  state(provider: string, deliveryId: string): Promise<DeliveryState | undefined>;
}

export type MetricDimensions = Readonly<Record<string, string>>;

/**
 * Counters and timings for CloudWatch (EMF in Lambda). Names are PascalCase and fixed (README
 * "Metrics"); dimensions are low-cardinality (outcome, provider, state), never a repo, SHA or app.
 */
export interface Metrics {
  count(name: string, value?: number, dimensions?: MetricDimensions): void;
  /** A duration in milliseconds. */
  timing(name: string, milliseconds: number, dimensions?: MetricDimensions): void;
  /** Writes what was recorded since the last flush (once per invocation). */
  flush(): void;
}

export const noMetrics: Metrics = { count: () => undefined, timing: () => undefined, flush: () => undefined };
