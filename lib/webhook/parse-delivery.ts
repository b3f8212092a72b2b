import { BadRequestError, UnauthorizedError } from '../errors.js';
import type { ParsedDelivery } from './delivery.js';
import type { DeliveryInput } from './delivery-input.js';
import { quoted } from './payload-fields.js';
import { readDelivery } from './provider-engine.js';
import { WEBHOOK_PROVIDERS } from './providers.js';
import { type GitProvider, isGitProvider } from './push-event.js';
import type { UnverifiedReason } from './verification.js';
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

/** The headers non-push events of the `any-header` providers may carry their delivery id in. */
const OTHER_EVENT_ID_HEADERS = Object.values(WEBHOOK_PROVIDERS).flatMap((p) =>
  p.otherEventsId === 'any-header' && 'header' in p.deliveryId ? p.deliveryId.header : [],
);

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
  const provider = WEBHOOK_PROVIDERS[parseProvider(input.provider)];
  const verification = await verifyDelivery(provider, input);
  if (!verification.verified) throw new WebhookUnauthorizedError(verification.reason);
  const receivedAt = input.receivedAt ?? new Date().toISOString();
  return readDelivery(provider, input, receivedAt, OTHER_EVENT_ID_HEADERS);
}

/**
 * An event AWS itself handed to the function (an EventBridge rule's target): there is no signature to
 * check, since only a principal allowed to invoke the function can send it. Never reachable over HTTP.
 */
export function parseTrustedDelivery(input: DeliveryInput): ParsedDelivery {
  const provider = WEBHOOK_PROVIDERS[parseProvider(input.provider)];
  const receivedAt = input.receivedAt ?? new Date().toISOString();
  return readDelivery(provider, input, receivedAt, OTHER_EVENT_ID_HEADERS);
}
