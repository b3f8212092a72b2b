import type { HttpRequest } from './http/request.js';
import type { HttpResponse } from './http/response.js';
import type { Logger, Metrics } from './ports.js';
import type { FanoutMessage, TrackMessage } from './queue/messages.js';
import type { DeliveryChannel } from './webhook/handle-webhook.js';

/** What the five functions do, independent of how Lambda or the local stack call them. */
export interface App {
  readonly logger: Logger;
  /** Flushed after every invocation by the handlers (absent in tests that fake the App). */
  readonly metrics?: Metrics;
  readonly maxBodyBytes: number;
  /** `channel: 'aws'`: an event an EventBridge rule handed over (no signature), see handle-webhook.ts. */
  webhook(request: HttpRequest, provider: string, channel?: DeliveryChannel): Promise<HttpResponse>;
  api(request: HttpRequest): Promise<HttpResponse>;
  /**
   * Resolves once the fleet is loaded and valid, rejects (every problem logged) while it is not: the
   * queue handlers then fail the whole invocation, so messages are retried and the Errors alarm fires.
   */
  fleetReady?(): Promise<void>;
  /** `deadlineMs` (epoch ms): when the invocation must stop starting work (Lambda: remaining time less a margin). */
  fanout(message: FanoutMessage, budget?: { deadlineMs: number }): Promise<void>;
  track(message: TrackMessage): Promise<void>;
  /**
   * One reconcile pass; `timeBudgetMs` is how long it may spend (Lambda: remaining time less a margin).
   * `sweepOnly`: only the sweep of open rollouts (release control's schedule, every minute).
   */
  reconcile(options?: { timeBudgetMs?: number; sweepOnly?: boolean }): Promise<Record<string, unknown>>;
  /** A queue record's body as sent: a pointer to an offloaded payload is resolved (absent: as is). */
  resolveQueueBody?(body: string): Promise<string>;
}

/** Each Lambda function's share of the App: what its own composition builds. */
export type WebhookApp = Pick<App, 'logger' | 'metrics' | 'maxBodyBytes' | 'webhook'>;
export type ApiApp = Pick<App, 'logger' | 'metrics' | 'api'>;
export type FleetApp = Pick<
  App,
  'logger' | 'metrics' | 'fanout' | 'track' | 'reconcile' | 'fleetReady' | 'resolveQueueBody'
>;
