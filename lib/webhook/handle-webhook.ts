import { DeadlineError, withDeadline } from '../concurrency.js';
import type { RegistryScope } from '../config.js';
import { AppError, PayloadTooLargeError } from '../errors.js';
import type { HttpRequest } from '../http/request.js';
import { describeError, errorResponse, type HttpResponse, json } from '../http/response.js';
import {
  type Clock,
  type DeliveryStore,
  type Logger,
  type Metrics,
  noMetrics,
  type Queue,
} from '../ports.js';
import type { PushMessage } from '../queue/messages.js';
import { imageDeliveryId, outOfScope } from '../registry/registry-scope.js';
import { type ActionOutcome, acceptAction } from './accept-action.js';
import type { ParsedDelivery } from './delivery.js';
import { type EnqueueOnceOptions, type EnqueueOutcome, enqueueOnce } from './enqueue-once.js';
import type { RequestedAction } from './github-check-run.js';
import { combinedAnswer } from './multi-ref-answer.js';
import {
  parseDelivery,
  parseProvider,
  parseTrustedDelivery,
  WebhookUnauthorizedError,
} from './parse-delivery.js';
import { isGitProvider } from './push-event.js';
import type { WebhookSecretSource } from './secret-source.js';
import { unavailable } from './unavailable.js';

export interface WebhookDeps {
  readonly secrets: WebhookSecretSource;
  readonly deliveries: DeliveryStore;
  readonly queue: Queue<PushMessage>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `Deliveries` by `outcome` (accepted, duplicate, unauthorized, ignored, rejected, unavailable). */
  readonly metrics?: Metrics;
  /** Checked again here in case a caller skipped `fromApiGatewayEvent`'s check; default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** How a delivery another caller is enqueueing right now is waited for (tests shorten it). */
  readonly enqueue?: EnqueueOnceOptions;
  /** Longest the webhook spends on its secrets, records and queue before it answers 503 (default 7 s). */
  readonly budgetMs?: number;
  /** Runs a button pressed on a check run (the Retry of failed apps); absent: such deliveries are ignored. */
  readonly actions?: (action: RequestedAction) => Promise<ActionOutcome>;
  /** Registry pushes of another AWS account or region are ignored (`RegistryEventsIgnored`). */
  readonly registryScope?: RegistryScope;
}

/**
 * How the delivery reached us: over HTTP (verified against the provider's secrets), or handed over by
 * AWS itself (an EventBridge rule invoking the function: no signature, IAM already authorised the call).
 */
export type DeliveryChannel = 'http' | 'aws';

export const DEFAULT_MAX_WEBHOOK_BODY_BYTES = 10 * 1024 * 1024;

/**
 * GitHub and GitLab give up on an answer after about 10 s (and GitHub never redelivers by itself): past
 * this budget a delivery that is not enqueued yet gets a 503 with `Retry-After`, never a 202.
 */
export const WEBHOOK_BUDGET_MS = 7_000;
/** What a 503 asks the sender (or an operator's redelivery) to wait. */

/**
 * The webhook request core: verify, parse, de-duplicate, record, enqueue, answer fast. A caller's
 * mistake gets a 4xx; only our own failures (secrets, store, queue) get a 5xx, which the provider
 * retries. Signatures, tokens and secrets never reach a log line or an answer.
 */
export async function handleWebhook(
  request: HttpRequest,
  provider: string,
  deps: WebhookDeps,
  channel: DeliveryChannel = 'http',
): Promise<HttpResponse> {
  const response = await answer(request, provider, deps, channel);
  (deps.metrics ?? noMetrics).count('Deliveries', 1, {
    provider: isGitProvider(provider) ? provider : 'unknown',
    outcome: outcomeOf(response),
  });
  return response;
}

/** The outcome dimension, read off the answer so every return path is counted exactly once. */
function outcomeOf(response: HttpResponse): string {
  if (response.statusCode === 202) return response.body.includes('"ignored"') ? 'ignored' : 'accepted';
  if (response.statusCode === 200) return response.body.includes('"duplicate"') ? 'duplicate' : 'ignored';
  if (response.statusCode === 401) return 'unauthorized';
  return response.statusCode >= 500 ? 'unavailable' : 'rejected';
}

async function answer(
  request: HttpRequest,
  provider: string,
  deps: WebhookDeps,
  channel: DeliveryChannel,
): Promise<HttpResponse> {
  const logger = deps.logger.child({ provider: isGitProvider(provider) ? provider : 'unknown' });
  // Real time, whatever clock the records use: this is the Git host's wait.
  const deadlineMs = Date.now() + (deps.budgetMs ?? WEBHOOK_BUDGET_MS);
  if (request.method.toUpperCase() !== 'POST') {
    return json(405, { error: 'method-not-allowed', message: 'use POST' }, { allow: 'POST' });
  }
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_WEBHOOK_BODY_BYTES;
  try {
    if (request.body.length > maxBodyBytes) throw new PayloadTooLargeError(maxBodyBytes);
    parseProvider(provider);
  } catch (error) {
    return rejected(error, logger);
  }

  let secrets: Awaited<ReturnType<WebhookSecretSource>>;
  try {
    secrets = await withDeadline(deps.secrets(), deadlineMs, 'webhook secrets');
  } catch (error) {
    logger.error('webhook secrets unavailable', { error: describeError(error) });
    return unavailable();
  }

  let delivery: ParsedDelivery;
  try {
    delivery = await (channel === 'aws' ? parseTrustedDelivery : parseDelivery)({
      provider,
      headers: request.headers,
      body: request.body,
      secrets,
      receivedAt: deps.clock.now().toISOString(),
    });
  } catch (error) {
    return rejected(error, logger);
  }

  const log = logger.child({ delivery: delivery.deliveryId, event: delivery.eventName });
  switch (delivery.kind) {
    case 'ping':
      log.info('webhook ping');
      return json(200, { ok: true, event: 'ping' });
    case 'ignored':
      log.info('webhook ignored', { reason: delivery.reason });
      return json(202, { ignored: delivery.reason });
    case 'push': {
      const foreign = notOurs(delivery, deps, log);
      return foreign ?? accept(delivery, log, deps, deadlineMs);
    }
    case 'pushes':
      return acceptEach(delivery, log, deps, deadlineMs);
    case 'action':
      return acceptAction(delivery, log, deps, deadlineMs);
  }
}

/** A registry push of another account or region than this deployment's: 202 ignored, and counted. */
function notOurs(
  delivery: Extract<ParsedDelivery, { kind: 'push' }>,
  deps: WebhookDeps,
  log: Logger,
): HttpResponse | undefined {
  const { image } = delivery.event;
  const scope = deps.registryScope;
  const reason = image === undefined || scope === undefined ? undefined : outOfScope(image, scope);
  if (reason === undefined) return undefined;
  (deps.metrics ?? noMetrics).count('RegistryEventsIgnored', 1, {
    provider: delivery.event.provider,
    reason,
  });
  log.info('webhook ignored', { reason: `image push of another ${reason}` });
  return json(202, { ignored: `image push of another ${reason} than this deployment's` });
}

/** One push per ref (`multi-ref.ts`), each recorded and enqueued as a delivery of its own. */
async function acceptEach(
  delivery: Extract<ParsedDelivery, { kind: 'pushes' }>,
  logger: Logger,
  deps: WebhookDeps,
  deadlineMs: number,
): Promise<HttpResponse> {
  const answers: HttpResponse[] = [];
  for (const event of delivery.events) {
    const one = { kind: 'push', deliveryId: event.deliveryId, eventName: delivery.eventName, event } as const;
    answers.push(await accept(one, logger.child({ delivery: event.deliveryId }), deps, deadlineMs));
  }
  return combinedAnswer(delivery.deliveryId, answers);
}

async function accept(
  delivery: Extract<ParsedDelivery, { kind: 'push' }>,
  logger: Logger,
  deps: WebhookDeps,
  deadlineMs: number,
): Promise<HttpResponse> {
  const { event } = delivery;
  // A registry push is de-duplicated on its digest and tag (two events of one image are one delivery).
  const deliveryId = event.image === undefined ? delivery.deliveryId : imageDeliveryId(event.image);
  const log = logger.child({ repo: event.repo.fullName, ref: event.ref, sha: event.after });
  let outcome: EnqueueOutcome;
  try {
    // A call still in flight at the deadline is abandoned: the push may or may not be on the queue, so the
    // answer is 503 (a redelivery is de-duplicated downstream), never a 202 for what may not be there.
    const enqueued = enqueueOnce(
      deps.deliveries,
      {
        provider: event.provider,
        deliveryId,
        event: delivery.eventName,
        repo: event.repo.webUrl,
        ref: event.ref,
        sha: event.after,
        receivedAt: event.receivedAt,
      },
      () =>
        deps.queue.send(
          { type: 'push', trigger: event.image === undefined ? 'webhook' : 'registry', event },
          { deduplicationId: `${event.provider}:${deliveryId}` },
        ),
      log,
      deps.enqueue,
    );
    outcome = await withDeadline(enqueued, deadlineMs, 'webhook enqueue');
  } catch (error) {
    log.error('delivery not enqueued', {
      error: describeError(error),
      ...(error instanceof DeadlineError ? { budgetMs: deps.budgetMs ?? WEBHOOK_BUDGET_MS } : {}),
    });
    return unavailable();
  }
  if (outcome === 'duplicate') {
    log.info('webhook duplicate');
    return json(200, { duplicate: true });
  }
  const files = event.changedFiles;
  log.info('webhook accepted', {
    refType: event.refType,
    changedFiles: files.known ? files.files.length : `unknown (${files.reason})`,
  });
  return json(202, { delivery: delivery.deliveryId, rollout: event.after });
}

function rejected(error: unknown, logger: Logger): HttpResponse {
  if (error instanceof WebhookUnauthorizedError) {
    logger.warn('webhook unauthorized', {
      security: 'high',
      metric: 'webhook_unauthorized',
      reason: error.reason,
    });
  } else if (error instanceof AppError && error.status < 500) {
    // `reason`, not `message`: Powertools keeps `message` for the line's own text and drops the field.
    logger.info('webhook rejected', { status: error.status, code: error.code, reason: error.message });
  }
  return errorResponse(error, logger);
}

export type { ActionOutcome } from './accept-action.js';
