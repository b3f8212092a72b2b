import { createHash } from 'node:crypto';
import { BadRequestError, UnauthorizedError } from '../errors.js';
import type { DeliveryMeta, NormalizedPush, ParsedDelivery } from './delivery.js';
import { normalizeGitHubPush } from './github.js';
import { normalizeGitLabPush } from './gitlab.js';
import { headerValue } from './headers.js';
import { isRecord, type JsonRecord, quoted } from './payload-fields.js';
import { type GitProvider, isGitProvider } from './push-event.js';
import type { WebhookSecrets } from './secret-source.js';
import { type UnverifiedReason, verifyGitHubSignature, verifyGitLabToken } from './verify.js';

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

/** 401 for a delivery that failed verification; `reason` is for the log line, never the answer. */
export class WebhookUnauthorizedError extends UnauthorizedError {
  readonly reason: UnverifiedReason;

  constructor(reason: UnverifiedReason) {
    super('signature or token is missing or wrong');
    this.reason = reason;
  }
}

const DELIVERY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const GITLAB_PUSH_KINDS: Readonly<Record<string, string>> = {
  'Push Hook': 'push',
  'Tag Push Hook': 'tag_push',
};

export function parseProvider(provider: string): GitProvider {
  if (!isGitProvider(provider)) {
    throw new BadRequestError(`unknown provider ${quoted(provider, 40)}`, { code: 'unknown-provider' });
  }
  return provider;
}

/**
 * Verify before parse: signature/token first (401), then the required headers, then JSON, then the
 * shape of the event it claims to be (400). Unknown events and ref deletions are ignored, not refused.
 */
export async function parseDelivery(input: DeliveryInput): Promise<ParsedDelivery> {
  const provider = parseProvider(input.provider);
  const verification =
    provider === 'github'
      ? await verifyGitHubSignature(input.body, input.headers, input.secrets.github)
      : verifyGitLabToken(input.headers, input.secrets.gitlab);
  if (!verification.verified) throw new WebhookUnauthorizedError(verification.reason);
  const receivedAt = input.receivedAt ?? new Date().toISOString();
  return provider === 'github' ? parseGitHub(input, receivedAt) : parseGitLab(input, receivedAt);
}

function parseGitHub(input: DeliveryInput, receivedAt: string): ParsedDelivery {
  const eventName = requiredHeader(input.headers, 'x-github-event');
  const deliveryId = deliveryIdFrom(input.headers, 'x-github-delivery');
  const delivery = { deliveryId, eventName };
  const body = jsonBody(input);
  if (eventName === 'ping') return { ...delivery, kind: 'ping' };
  if (eventName !== 'push') return { ...delivery, kind: 'ignored', reason: notHandled(eventName) };
  return withDelivery(delivery, normalizeGitHubPush(body, { deliveryId, receivedAt }));
}

function parseGitLab(input: DeliveryInput, receivedAt: string): ParsedDelivery {
  const eventName = requiredHeader(input.headers, 'x-gitlab-event');
  const deliveryId = gitlabDeliveryId(input);
  const delivery = { deliveryId, eventName };
  const body = jsonBody(input);
  const meta: DeliveryMeta = { deliveryId, receivedAt };
  const kind = gitlabKind(body);
  if (eventName === 'System Hook') {
    if (kind !== 'push' && kind !== 'tag_push') {
      return {
        ...delivery,
        kind: 'ignored',
        reason: `system hook ${quoted(kind ?? 'unknown', 60)} is not handled`,
      };
    }
    return withDelivery(delivery, normalizeGitLabPush(body, meta));
  }
  const expected = GITLAB_PUSH_KINDS[eventName];
  if (expected === undefined) return { ...delivery, kind: 'ignored', reason: notHandled(eventName) };
  if (kind !== undefined && kind !== expected) {
    throw new BadRequestError(`body is not a ${eventName}: object_kind is ${quoted(kind, 60)}`, {
      code: 'invalid-payload',
    });
  }
  return withDelivery(delivery, normalizeGitLabPush(body, meta));
}

function withDelivery(
  delivery: { deliveryId: string; eventName: string },
  push: NormalizedPush,
): ParsedDelivery {
  if (push.kind === 'ignored') return { ...delivery, ...push };
  if (push.event.deleted) return { ...delivery, kind: 'ignored', reason: 'ref deleted' };
  return { ...delivery, ...push };
}

function gitlabKind(body: JsonRecord): string | undefined {
  const kind = body.object_kind ?? body.event_name;
  return typeof kind === 'string' && kind !== '' ? kind : undefined;
}

/**
 * GitLab's `Idempotency-Key` stays the same across retries; `X-Gitlab-Event-UUID` names the event.
 * Without either (older GitLab, or a proxy that drops them) the id is the body's SHA-256, so a
 * redelivery of the same bytes is still a duplicate.
 */
function gitlabDeliveryId(input: DeliveryInput): string {
  for (const name of ['idempotency-key', 'x-gitlab-event-uuid']) {
    if (headerValue(input.headers, name) !== undefined) return deliveryIdFrom(input.headers, name);
  }
  return `sha256-${createHash('sha256').update(input.body).digest('hex')}`;
}

function requiredHeader(headers: Readonly<Record<string, string>>, name: string): string {
  const value = headerValue(headers, name);
  if (value === undefined)
    throw new BadRequestError(`header ${name} is required`, { code: 'missing-header' });
  return value;
}

function deliveryIdFrom(headers: Readonly<Record<string, string>>, name: string): string {
  const value = requiredHeader(headers, name);
  if (!DELIVERY_ID.test(value)) {
    throw new BadRequestError(`header ${name} is not a valid delivery id`, { code: 'invalid-header' });
  }
  return value;
}

/** The body as a JSON object; GitHub's form-encoded content type carries it in the `payload` field. */
function jsonBody(input: DeliveryInput): JsonRecord {
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

function notHandled(eventName: string): string {
  return `event ${quoted(eventName, 60)} is not handled`;
}
