import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BadRequestError, PayloadTooLargeError } from '../errors.js';

/** A provider-neutral HTTP request: lower-case header names, the raw body bytes (verify before parse). */
export interface HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly pathParameters: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The caller's IAM principal ARN, when API Gateway's IAM authorizer let the call in. */
  readonly principal?: string;
}

/**
 * Decodes an API Gateway HTTP API (payload v2) or Lambda Function URL event. The size check runs on the
 * encoded length before anything is decoded, so an oversize body costs nothing.
 */
export function fromApiGatewayEvent(event: APIGatewayProxyEventV2, maxBodyBytes: number): HttpRequest {
  const raw = event.body ?? '';
  const size = event.isBase64Encoded ? Buffer.byteLength(raw, 'base64') : Buffer.byteLength(raw, 'utf8');
  if (size > maxBodyBytes) throw new PayloadTooLargeError(maxBodyBytes);
  const body = event.isBase64Encoded ? decodeBase64(raw) : Buffer.from(raw, 'utf8');
  return {
    method: event.requestContext?.http?.method ?? 'GET',
    path: event.rawPath ?? '/',
    headers: withCookies(lowerCaseKeys(event.headers ?? {}), event.cookies),
    query: definedValues(event.queryStringParameters ?? {}),
    pathParameters: definedValues(event.pathParameters ?? {}),
    body,
    ...principalOf(event),
  };
}

/** `requestContext.authorizer.iam.userArn` of an IAM-authorized HTTP API (payload 2.0) call. */
function principalOf(event: APIGatewayProxyEventV2): { principal?: string } {
  const context = event.requestContext as { authorizer?: { iam?: { userArn?: unknown } } } | undefined;
  const arn = context?.authorizer?.iam?.userArn;
  return typeof arn === 'string' && arn !== '' ? { principal: arn } : {};
}

function decodeBase64(raw: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(raw.replace(/\s+/g, ''))) {
    throw new BadRequestError('body is marked base64 but is not');
  }
  return Buffer.from(raw, 'base64');
}

function lowerCaseKeys(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = value;
  }
  return out;
}

function definedValues(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Payload 2.0 moves the `Cookie` header into `cookies`; put it back where header readers look. */
function withCookies(headers: Record<string, string>, cookies: readonly string[] | undefined) {
  if (cookies === undefined || cookies.length === 0) return headers;
  return { ...headers, cookie: cookies.join('; ') };
}
