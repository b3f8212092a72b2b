import type { HttpRequest } from '../http/request.js';
import { isRecord } from './payload-fields.js';

/** Which webhook route takes the events of an EventBridge `source`. */
const ROUTE_OF_SOURCE: Readonly<Record<string, string>> = { 'aws.ecr': 'ecr' };

/**
 * An EventBridge event handed to the webhook function by a rule (not an API Gateway request): it has
 * `source`, `detail-type` and `detail`, and none of API Gateway's `requestContext`, `routeKey`, `rawPath`.
 */
export function isEventBridgeEvent(event: unknown): event is Readonly<Record<string, unknown>> {
  return (
    isRecord(event) &&
    typeof event.source === 'string' &&
    typeof event['detail-type'] === 'string' &&
    isRecord(event.detail) &&
    event.requestContext === undefined &&
    event.routeKey === undefined &&
    event.rawPath === undefined
  );
}

/** The event as the request `POST /webhooks/{route}` would carry it, and its route (undefined: no route). */
export function eventBridgeRequest(event: Readonly<Record<string, unknown>>): {
  readonly provider: string | undefined;
  readonly request: HttpRequest;
} {
  const provider = ROUTE_OF_SOURCE[String(event.source)];
  return {
    provider,
    request: {
      method: 'POST',
      path: `/webhooks/${provider ?? 'unknown'}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      pathParameters: provider === undefined ? {} : { provider },
      body: Buffer.from(JSON.stringify(event), 'utf8'),
    },
  };
}
