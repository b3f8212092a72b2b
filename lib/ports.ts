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

export interface DeliveryStore {
  /** Conditional write keyed on the delivery id: `duplicate` when it was recorded before. */
  recordOnce(record: DeliveryRecord): Promise<'recorded' | 'duplicate'>;
  /** Undo a record whose message could not be enqueued, so the provider's redelivery is not a duplicate. */
  forget(provider: string, deliveryId: string): Promise<void>;
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
