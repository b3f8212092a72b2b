import { AppError, UpstreamError } from '../errors.js';

/** A failed call to a cluster's API. Carries the Kubernetes `Status` reason and any `Retry-After`. */
export class KubernetesApiError extends UpstreamError {
  readonly cluster: string;
  readonly reason: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: {
      cluster: string;
      retryable: boolean;
      upstreamStatus?: number;
      reason?: string;
      retryAfterMs?: number;
      cause?: unknown;
    },
  ) {
    super(message, {
      retryable: options.retryable,
      code: 'kubernetes',
      ...(options.upstreamStatus === undefined ? {} : { upstreamStatus: options.upstreamStatus }),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.cluster = options.cluster;
    this.reason = options.reason;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** 409 (conflict), 429 (throttled), 408 and 5xx may pass on a later try; 401/403/404/422 will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export interface KubeCallContext {
  readonly cluster: string;
  /** `list`, `get`, `patch`, … */
  readonly verb: string;
  /** `applications.argoproj.io` */
  readonly resource: string;
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly timeoutMs?: number;
}

interface HttpFailure {
  readonly code: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/**
 * Turns whatever the client threw into a `KubernetesApiError` whose message names the call, the status
 * and the API server's own `Status.message` — never a request header, so never a token.
 */
export function toKubernetesError(error: unknown, context: KubeCallContext): AppError {
  if (error instanceof KubernetesApiError) return error;
  if (error instanceof AppError && !(error instanceof UpstreamError)) return error;
  const what = describeCall(context);
  if (isHttpFailure(error)) {
    const status = parseStatus(error.body);
    const retryAfterMs = retryAfter(error.headers);
    return new KubernetesApiError(
      `${what}: ${error.code}${status.reason === undefined ? '' : ` ${status.reason}`}${status.message === undefined ? '' : `: ${status.message}`}`,
      {
        cluster: context.cluster,
        retryable: isRetryableStatus(error.code),
        upstreamStatus: error.code,
        ...(status.reason === undefined ? {} : { reason: status.reason }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    );
  }
  if (error instanceof UpstreamError) {
    return new KubernetesApiError(`${what}: ${error.message}`, {
      cluster: context.cluster,
      retryable: error.retryable,
      ...(error.upstreamStatus === undefined ? {} : { upstreamStatus: error.upstreamStatus }),
      cause: error,
    });
  }
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'AbortError' || name === 'TimeoutError') {
    const after = context.timeoutMs === undefined ? '' : ` after ${context.timeoutMs} ms`;
    return new KubernetesApiError(`${what}: timed out${after}`, {
      cluster: context.cluster,
      retryable: true,
      reason: 'Timeout',
    });
  }
  const tls = tlsCode(error);
  if (tls !== undefined) {
    // Trying again will not help: the CA the orchestrator trusts is not the one that signed the server.
    return new KubernetesApiError(
      `${what}: the API server's certificate is not trusted (${tls}); set caData to the cluster's CA`,
      { cluster: context.cluster, retryable: false, reason: 'CertificateNotTrusted', cause: error },
    );
  }
  const code = networkCode(error);
  // Only the error's class name: a foreign message could quote more than we want in a log line.
  const kind = error instanceof Error && error.name !== 'Error' ? error.name : 'request failed';
  return new KubernetesApiError(`${what}: ${code ?? kind}`, {
    cluster: context.cluster,
    // Connection-level failures are worth another try; a programming error is not.
    retryable: code !== undefined,
    cause: error,
  });
}

function describeCall(context: KubeCallContext): string {
  const object = [context.namespace, context.name].filter((p) => p !== undefined && p !== '').join('/');
  return `cluster ${context.cluster}: ${context.verb} ${context.resource}${object === '' ? '' : ` ${object}`}`;
}

function isHttpFailure(error: unknown): error is HttpFailure {
  return typeof (error as { code?: unknown } | null)?.code === 'number';
}

function parseStatus(body: unknown): { reason?: string; message?: string } {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (typeof value !== 'object' || value === null) return {};
  const { reason, message } = value as { reason?: unknown; message?: unknown };
  return {
    ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
    ...(typeof message === 'string' && message !== '' ? { message: message.slice(0, 500) } : {}),
  };
}

function retryAfter(headers: Record<string, string> | undefined): number | undefined {
  const raw = headers?.['retry-after'] ?? headers?.['Retry-After'];
  if (raw === undefined) return undefined;
  return parseRetryAfter(raw, Date.now());
}

/** `Retry-After` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(raw: string, nowMs: number): number | undefined {
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    const type = (current as { type?: unknown }).type;
    if (type === 'system' || type === 'request-timeout') return String(code ?? type);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

// OpenSSL's verification failures as Node names them (`error.code` of the TLS socket's error).
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function tlsCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && TLS_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
