/**
 * Typed errors. `status` below 500 is the caller's fault and its message is safe to show; anything else
 * is answered with a generic 500 by the one mapping in `lib/http/response.ts`.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(message: string, options: { status?: number; code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status ?? 500;
    this.code = options.code ?? 'internal';
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, { status: 400, code: options.code ?? 'bad-request', cause: options.cause });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'unauthorized', options: { code?: string } = {}) {
    super(message, { status: 401, code: options.code ?? 'unauthorized' });
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'not found') {
    super(message, { status: 404, code: 'not-found' });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(`body is larger than ${limitBytes} bytes`, { status: 413, code: 'payload-too-large' });
  }
}

/** A setting is missing or invalid: start-up stops with this one line. */
export class ConfigError extends AppError {
  readonly setting: string;

  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`, { code: 'config' });
    this.setting = setting;
  }
}

/** The fleet file is invalid: `problems` lists every one as `file:line: field.path: problem`, in line order. */
export class FleetConfigError extends AppError {
  readonly source: string;
  readonly problems: readonly string[];

  constructor(source: string, problems: readonly string[], options: { cause?: unknown } = {}) {
    super(problems.join('\n'), { code: 'fleet-config', cause: options.cause });
    this.source = source;
    this.problems = problems;
  }
}

/** An upstream (cluster, AWS, Git host, Slack) failed; `retryable` says whether trying again may help. */
export class UpstreamError extends AppError {
  readonly retryable: boolean;
  readonly upstreamStatus: number | undefined;

  constructor(
    message: string,
    options: { retryable: boolean; upstreamStatus?: number; cause?: unknown; code?: string },
  ) {
    super(message, { code: options.code ?? 'upstream', cause: options.cause });
    this.retryable = options.retryable;
    this.upstreamStatus = options.upstreamStatus;
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
