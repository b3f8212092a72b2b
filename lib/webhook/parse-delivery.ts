import { BadRequestError, UnauthorizedError } from '../errors.js';
import type { DeliveryMeta, ParsedDelivery } from './delivery.js';
import {
  bodyHashId,
  type DeliveryInput,
  deliveryIdFrom,
  jsonBody,
  notHandled,
  requiredHeader,
} from './delivery-input.js';
import { normalizeGitHubPush } from './github.js';
import { normalizeGitLabPush } from './gitlab.js';
import { headerValue } from './headers.js';
import { withDelivery } from './multi-ref.js';
import { parseMoreProviders } from './parse-more-providers.js';
import { type JsonRecord, quoted } from './payload-fields.js';
import { type GitProvider, isGitProvider } from './push-event.js';
import type { UnverifiedReason } from './verify.js';
import { verifyDelivery } from './verify-delivery.js';

export type { DeliveryInput } from './delivery-input.js';

/** 401 for a delivery that failed verification; `reason` is for the log line, never the answer. */
export class WebhookUnauthorizedError extends UnauthorizedError {
  readonly reason: UnverifiedReason;

  constructor(reason: UnverifiedReason) {
    super('signature or token is missing or wrong');
    this.reason = reason;
  }
}

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
  const verification = await verifyDelivery(provider, input);
  if (!verification.verified) throw new WebhookUnauthorizedError(verification.reason);
  const receivedAt = input.receivedAt ?? new Date().toISOString();
  if (provider === 'github') return parseGitHub(input, receivedAt);
  if (provider === 'gitlab') return parseGitLab(input, receivedAt);
  return parseMoreProviders(provider, input, receivedAt);
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
  return bodyHashId(input.body);
}
