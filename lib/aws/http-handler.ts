import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface AwsHttpOptions {
  /** Longest a request may take from sending to the last byte of the answer (default 5 s). */
  readonly requestTimeoutMs?: number;
  /** Longest a TCP/TLS connect may take (default: 2 s, or the request timeout when that is shorter). */
  readonly connectionTimeoutMs?: number;
  /** Sockets per client (default 50; fan-out and track write hundreds of records at once). */
  readonly maxSockets?: number;
}

export const DEFAULT_AWS_REQUEST_TIMEOUT_MS = 5_000;

/**
 * The webhook's AWS calls (delivery record, payload, SendMessage, its secrets): GitHub and GitLab wait
 * about 10 s for an answer, so each call gets at most 2 tries of 2 s (with a 1 s connect) instead of the
 * SDK's 3 tries of our default 5 s, and the webhook answers 503 by `WEBHOOK_BUDGET_MS` whatever is in flight.
 */
export const WEBHOOK_AWS = { requestTimeoutMs: 2_000, connectionTimeoutMs: 1_000, maxAttempts: 2 } as const;

/**
 * The request handler every AWS SDK client is built with. SDK v3 clients have no timeout by default, and
 * in the pinned version `requestTimeout` only logs a warning unless `throwOnRequestTimeout` is set too, so
 * without this a hung endpoint holds a call until the Lambda dies. Keep-alive agents spare a TLS
 * handshake per call.
 */
export function awsRequestHandler(options: AwsHttpOptions = {}): NodeHttpHandler {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_AWS_REQUEST_TIMEOUT_MS;
  const agent = { keepAlive: true, maxSockets: options.maxSockets ?? 50 };
  return new NodeHttpHandler({
    connectionTimeout: Math.min(options.connectionTimeoutMs ?? 2_000, requestTimeout),
    requestTimeout,
    throwOnRequestTimeout: true,
    httpAgent: new HttpAgent(agent),
    httpsAgent: new HttpsAgent(agent),
  });
}
