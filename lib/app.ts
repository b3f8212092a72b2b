import type { HttpRequest } from './http/request.js';
import type { HttpResponse } from './http/response.js';
import type { Logger } from './ports.js';
import type { FanoutMessage, TrackMessage } from './queue/messages.js';

/** What the five functions do, independent of how Lambda or the local stack call them. */
export interface App {
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  webhook(request: HttpRequest, provider: string): Promise<HttpResponse>;
  api(request: HttpRequest): Promise<HttpResponse>;
  /** `deadlineMs` (epoch ms): when the invocation must stop starting work (Lambda: remaining time less a margin). */
  fanout(message: FanoutMessage, budget?: { deadlineMs: number }): Promise<void>;
  track(message: TrackMessage): Promise<void>;
  /** One reconcile pass; `timeBudgetMs` is how long it may spend (Lambda: remaining time less a margin). */
  reconcile(options?: { timeBudgetMs?: number }): Promise<Record<string, unknown>>;
}
