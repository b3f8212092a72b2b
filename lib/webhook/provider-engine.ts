import type { DeliveryMeta, ParsedDelivery } from './delivery.js';
import {
  bodyHashId,
  type DeliveryInput,
  deliveryIdFrom,
  jsonBody,
  notHandled,
  requiredHeader,
  validDeliveryId,
} from './delivery-input.js';
import { headerValue } from './headers.js';
import { deliveryOfChanges, withDelivery } from './multi-ref.js';
import { type JsonRecord, missingField, optionalString } from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';

/** A delivery id a host might send, braces allowed (Bitbucket's `{uuid}`); only for log lines. */
const PLAUSIBLE_ID = /^[A-Za-z0-9{][A-Za-z0-9._:{}-]{0,101}$/;

/**
 * A verified delivery read through its provider's row: the event name, then (for a push, or first when
 * the provider says so) the delivery id and the JSON body, then the push normalised into provider-neutral
 * events. Unknown events are ignored, not refused; a deleted ref is ignored; a bad header or body is a 400.
 * `idHeaders`: every header the `any-header` providers name their deliveries in, for non-push log lines.
 */
export function readDelivery(
  provider: WebhookProvider,
  input: DeliveryInput,
  receivedAt: string,
  idHeaders: readonly string[],
): ParsedDelivery {
  let body = 'bodyField' in provider.eventName ? jsonBody(input) : undefined;
  const eventName = readEventName(provider, input, body);
  let deliveryId: string | undefined;
  if (provider.otherEventsId === 'first') {
    deliveryId = pushDeliveryId(provider, input, body);
    body ??= jsonBody(input);
  }
  const { events } = provider;
  if (events.action?.events.includes(eventName) === true) {
    deliveryId ??= pushDeliveryId(provider, input, body);
    const read = events.action.read(body ?? jsonBody(input));
    return 'ignored' in read
      ? { deliveryId, eventName, kind: 'ignored', reason: read.ignored }
      : { deliveryId, eventName, kind: 'action', action: read };
  }
  const isPing = events.ping?.includes(eventName) === true;
  if (isPing || !events.push.includes(eventName)) {
    const delivery = { deliveryId: deliveryId ?? otherEventId(provider, input, idHeaders), eventName };
    return isPing
      ? { ...delivery, kind: 'ping' }
      : { ...delivery, kind: 'ignored', reason: notHandled(eventName) };
  }
  deliveryId ??= pushDeliveryId(provider, input, body);
  body ??= jsonBody(input);
  const delivery = { deliveryId, eventName };
  const reason = events.checkPush?.(eventName, body);
  if (reason !== undefined) return { ...delivery, kind: 'ignored', reason };
  const normalized = provider.normalize(body, meta(deliveryId, receivedAt));
  return Array.isArray(normalized)
    ? deliveryOfChanges(delivery, normalized)
    : withDelivery(delivery, normalized);
}

function readEventName(
  provider: WebhookProvider,
  input: DeliveryInput,
  body: JsonRecord | undefined,
): string {
  const source = provider.eventName;
  if ('fixed' in source) return source.fixed;
  if ('bodyField' in source) return optionalString(body, source.bodyField) ?? source.otherwise;
  const name = source.header.find((n) => headerValue(input.headers, n) !== undefined) ?? source.header[0];
  return requiredHeader(input.headers, name ?? '');
}

/** The id a push is de-duplicated on: required and valid, so a redelivery is recognised. */
function pushDeliveryId(
  provider: WebhookProvider,
  input: DeliveryInput,
  body: JsonRecord | undefined,
): string {
  const source = provider.deliveryId;
  if ('bodyField' in source) {
    // A fixed event name (ECR) has not read the body yet.
    const raw = optionalString(body ?? jsonBody(input), source.bodyField);
    if (raw === undefined) throw missingField(source.bodyField);
    return validDeliveryId(raw, `body field ${JSON.stringify(source.bodyField)}`);
  }
  const given = source.header.some((n) => headerValue(input.headers, n) !== undefined);
  return !given && source.orBodyHash
    ? bodyHashId(input.body)
    : deliveryIdFrom(input.headers, ...source.header);
}

/** Events that are not pushes are not de-duplicated, so any delivery id serves the log line. */
function otherEventId(provider: WebhookProvider, input: DeliveryInput, idHeaders: readonly string[]): string {
  if (provider.otherEventsId === 'any-header') {
    const given = idHeaders
      .map((n) => headerValue(input.headers, n))
      .find((v) => v !== undefined && PLAUSIBLE_ID.test(v));
    const id = given?.replace(/[{}]/g, '');
    if (id) return id;
  }
  return bodyHashId(input.body);
}

function meta(deliveryId: string, receivedAt: string): DeliveryMeta {
  return { deliveryId, receivedAt };
}
