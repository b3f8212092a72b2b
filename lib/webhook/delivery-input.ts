import { createHash } from 'node:crypto';
import { BadRequestError } from '../errors.js';
import { headerValue } from './headers.js';
import { isRecord, type JsonRecord, quoted } from './payload-fields.js';
import type { WebhookSecrets } from './secret-source.js';

export interface DeliveryInput {
  readonly provider: string;
  /** Request headers; names are matched case-insensitively. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body bytes, exactly as signed. */
  readonly body: Buffer;
  readonly secrets: WebhookSecrets;
  /** ISO-8601 receive time for the event; defaults to now. */
  readonly receivedAt?: string;
}

const DELIVERY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

export function requiredHeader(headers: Readonly<Record<string, string>>, name: string): string {
  const value = headerValue(headers, name);
  if (value === undefined)
    throw new BadRequestError(`header ${name} is required`, { code: 'missing-header' });
  return value;
}

/** The first of `names` present, as a delivery id; Bitbucket's `{uuid}` braces are dropped. */
export function deliveryIdFrom(headers: Readonly<Record<string, string>>, ...names: string[]): string {
  const name = names.find((n) => headerValue(headers, n) !== undefined) ?? names[0] ?? '';
  return validDeliveryId(requiredHeader(headers, name), `header ${name}`);
}

export function validDeliveryId(value: string, what: string): string {
  const id = /^\{[^{}]*\}$/.test(value) ? value.slice(1, -1) : value;
  if (!DELIVERY_ID.test(id)) {
    throw new BadRequestError(`${what} is not a valid delivery id`, { code: 'invalid-header' });
  }
  return id;
}

/** Without a delivery id, the body's SHA-256: a redelivery of the same bytes is still a duplicate. */
export function bodyHashId(body: Buffer): string {
  return `sha256-${createHash('sha256').update(body).digest('hex')}`;
}

/** The body as a JSON object; GitHub's form-encoded content type carries it in the `payload` field. */
export function jsonBody(input: Pick<DeliveryInput, 'headers' | 'body'>): JsonRecord {
  const contentType = headerValue(input.headers, 'content-type')?.toLowerCase() ?? '';
  let text = input.body.toString('utf8');
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    text = new URLSearchParams(text).get('payload') ?? '';
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError('body is not valid JSON', { code: 'malformed-json' });
  }
  if (!isRecord(parsed)) throw new BadRequestError('body must be a JSON object', { code: 'invalid-payload' });
  return parsed;
}

export function notHandled(eventName: string): string {
  return `event ${quoted(eventName, 60)} is not handled`;
}
