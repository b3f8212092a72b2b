import { normalizeAzureDevOpsPush } from './azure-devops.js';
import { normalizeBitbucketPush } from './bitbucket.js';
import { normalizeBitbucketServerPush } from './bitbucket-server.js';
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
import { normalizeGenericPush } from './generic.js';
import { normalizeGiteaPush } from './gitea.js';
import { headerValue } from './headers.js';
import { deliveryOfChanges, withDelivery } from './multi-ref.js';
import { missingField, optionalString } from './payload-fields.js';
import type { GitProvider } from './push-event.js';

type Parser = (input: DeliveryInput, receivedAt: string) => ParsedDelivery;

const GITEA_EVENT = ['x-gitea-event', 'x-forgejo-event', 'x-gogs-event'];
const GITEA_DELIVERY = ['x-gitea-delivery', 'x-forgejo-delivery', 'x-gogs-delivery'];

/**
 * The headers and bodies of Bitbucket Cloud, Bitbucket Server, Azure DevOps, Gitea/Forgejo/Gogs and the
 * generic endpoint, after verification. Events other than a push are answered 202 ignored (a Bitbucket
 * Server ping 200); the delivery id is required only where the push is de-duplicated on it.
 */
const PARSERS: Readonly<Record<Exclude<GitProvider, 'github' | 'gitlab'>, Parser>> = {
  bitbucket(input, receivedAt) {
    const eventName = requiredHeader(input.headers, 'x-event-key');
    if (eventName !== 'repo:push') return ignored(input, eventName, notHandled(eventName));
    const deliveryId = deliveryIdFrom(input.headers, 'x-request-uuid');
    const changes = normalizeBitbucketPush(jsonBody(input), meta(deliveryId, receivedAt));
    return deliveryOfChanges({ deliveryId, eventName }, changes);
  },
  'bitbucket-server'(input, receivedAt) {
    const eventName = requiredHeader(input.headers, 'x-event-key');
    if (eventName === 'diagnostics:ping') return { ...header(input, eventName), kind: 'ping' };
    if (eventName !== 'repo:refs_changed') return ignored(input, eventName, notHandled(eventName));
    const deliveryId = deliveryIdFrom(input.headers, 'x-request-id');
    const changes = normalizeBitbucketServerPush(jsonBody(input), meta(deliveryId, receivedAt));
    return deliveryOfChanges({ deliveryId, eventName }, changes);
  },
  'azure-devops'(input, receivedAt) {
    const body = jsonBody(input);
    const eventName = optionalString(body, 'eventType') ?? 'unknown';
    if (eventName !== 'git.push') {
      return {
        deliveryId: bodyHashId(input.body),
        eventName,
        kind: 'ignored',
        reason: notHandled(eventName),
      };
    }
    const rawId = optionalString(body, 'id');
    if (rawId === undefined) throw missingField('id');
    const deliveryId = validDeliveryId(rawId, 'body field "id"');
    const changes = normalizeAzureDevOpsPush(body, meta(deliveryId, receivedAt));
    return deliveryOfChanges({ deliveryId, eventName }, changes);
  },
  gitea(input, receivedAt) {
    const name = GITEA_EVENT.find((n) => headerValue(input.headers, n) !== undefined) ?? GITEA_EVENT[0];
    const eventName = requiredHeader(input.headers, name ?? 'x-gitea-event');
    if (eventName !== 'push') return ignored(input, eventName, notHandled(eventName));
    const deliveryId = deliveryIdFrom(input.headers, ...GITEA_DELIVERY);
    const body = jsonBody(input);
    return withDelivery({ deliveryId, eventName }, normalizeGiteaPush(body, meta(deliveryId, receivedAt)));
  },
  generic(input, receivedAt) {
    const deliveryId =
      headerValue(input.headers, 'x-delivery-id') === undefined
        ? bodyHashId(input.body)
        : deliveryIdFrom(input.headers, 'x-delivery-id');
    const eventName = 'push';
    const body = jsonBody(input);
    return withDelivery({ deliveryId, eventName }, normalizeGenericPush(body, meta(deliveryId, receivedAt)));
  },
};

export function parseMoreProviders(
  provider: Exclude<GitProvider, 'github' | 'gitlab'>,
  input: DeliveryInput,
  receivedAt: string,
): ParsedDelivery {
  return PARSERS[provider](input, receivedAt);
}

function meta(deliveryId: string, receivedAt: string): DeliveryMeta {
  return { deliveryId, receivedAt };
}

/** Events that are not pushes are not de-duplicated, so any delivery id serves the log line. */
function header(input: DeliveryInput, eventName: string) {
  const given = ['x-request-uuid', 'x-request-id', ...GITEA_DELIVERY]
    .map((n) => headerValue(input.headers, n))
    .find((v) => v !== undefined && /^[A-Za-z0-9{][A-Za-z0-9._:{}-]{0,101}$/.test(v));
  return { deliveryId: given?.replace(/[{}]/g, '') || bodyHashId(input.body), eventName };
}

function ignored(input: DeliveryInput, eventName: string, reason: string): ParsedDelivery {
  return { ...header(input, eventName), kind: 'ignored', reason };
}
