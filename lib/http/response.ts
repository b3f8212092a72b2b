import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../errors.js';
import type { Logger } from '../ports.js';

export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * The one place errors become HTTP answers: an AppError under 500 is the caller's and its message is
 * shown; anything else is logged and answered with a generic 500 that reveals nothing.
 */
export function errorResponse(error: unknown, logger: Logger): HttpResponse {
  if (error instanceof AppError && error.status < 500) {
    return json(error.status, { error: error.code, message: error.message });
  }
  logger.error('request failed', { error: describeError(error) });
  return json(500, { error: 'internal', message: 'internal error' });
}

export function toLambdaResult(response: HttpResponse): APIGatewayProxyStructuredResultV2 {
  return { statusCode: response.statusCode, headers: { ...response.headers }, body: response.body };
}

/** Error name, code and message only: stacks and causes can carry request data. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof AppError) return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { message: String(error) };
}
