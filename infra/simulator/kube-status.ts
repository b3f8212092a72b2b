/** Kubernetes `Status` bodies, as the API server answers failures. */
export interface KubeStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message: string;
  readonly reason: string;
  readonly details?: { readonly name?: string; readonly group?: string; readonly kind?: string };
  readonly code: number;
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function kubeStatus(
  code: number,
  message: string,
  options: { reason?: string; details?: KubeStatus['details'] } = {},
): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: code < 400 ? 'Success' : 'Failure',
    message,
    reason: options.reason ?? REASONS[code] ?? 'Unknown',
    ...(options.details === undefined ? {} : { details: options.details }),
    code,
  };
}

/** A failure the store or a handler raises; the server answers it as a `Status`. */
export class KubeStatusError extends Error {
  readonly status: KubeStatus;

  constructor(
    code: number,
    message: string,
    options: { reason?: string; details?: KubeStatus['details'] } = {},
  ) {
    super(message);
    this.status = kubeStatus(code, message, options);
  }
}
