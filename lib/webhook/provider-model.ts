import type { DeliveryMeta, NormalizedPush } from './delivery.js';
import type { RequestedAction } from './github-check-run.js';
import type { JsonRecord } from './payload-fields.js';
import type { GitProvider } from './push-event.js';

/** Where a delivery names its event. */
export type EventNameSource =
  /** The first of these headers present (required; the 400 names the first when none is). */
  | { readonly header: readonly string[] }
  /** A body field (Azure DevOps service hooks), `otherwise` when it is absent. */
  | { readonly bodyField: string; readonly otherwise: string }
  /** An endpoint that takes pushes only (the generic one). */
  | { readonly fixed: string };

/** Where a push's delivery id (its de-duplication key) comes from. */
export type DeliveryIdSource =
  /** The first of these headers present; without any, a 400, or the body's SHA-256 when `orBodyHash`. */
  | { readonly header: readonly string[]; readonly orBodyHash?: boolean }
  /** A body field (Azure DevOps' notification `id`), required. */
  | { readonly bodyField: string };

/**
 * When the id and the JSON body are read. `first`: before the event is classified, so a ping or an
 * ignored event needs a valid id and body too (GitHub, GitLab). `any-header`: only for a push; other
 * events are logged under any plausible id header present, else the body hash (Bitbucket, Gitea).
 * `body-hash`: only for a push; other events are logged under the body hash (Azure DevOps).
 */
export type OtherEventsId = 'first' | 'any-header' | 'body-hash';

/** How a delivery proves it came from the host, against that provider's accepted secrets. */
export type SignatureScheme =
  /** `X-Hub-Signature-256: sha256=<hex>` checked by octokit; SHA-1 alone refused. */
  | { readonly kind: 'github-sha256' }
  /** A shared token sent as is in a header (GitLab `X-Gitlab-Token`). */
  | { readonly kind: 'token'; readonly header: string }
  /** HMAC-SHA256 of the raw body in the first of `names` present, hex after `prefix`. */
  | { readonly kind: 'hmac-sha256'; readonly names: readonly string[]; readonly prefix: 'sha256=' | '' }
  /** HTTP basic auth, the password being the secret (Azure DevOps). */
  | { readonly kind: 'basic-auth' };

/**
 * Events a provider answers: a push is normalised, a ping answered 200, anything else ignored (202).
 * `checkPush` sees a push event's body before normalising: it may ignore it (a reason) or refuse it
 * (throw a 400), e.g. a GitLab system hook that is not a push, or a body that is not the event named.
 */
export interface ProviderEvents {
  readonly push: readonly string[];
  readonly ping?: readonly string[];
  readonly checkPush?: (eventName: string, body: JsonRecord) => string | undefined;
  /** Events that carry an action requested on something the orchestrator posted (GitHub `check_run`). */
  readonly action?: {
    readonly events: readonly string[];
    readonly read: (body: JsonRecord) => RequestedAction | { readonly ignored: string };
  };
}

/** One Git host's webhook: its per-host parts as data and one normaliser; the engine does the rest. */
export interface WebhookProvider {
  readonly name: GitProvider;
  readonly signature: SignatureScheme;
  readonly eventName: EventNameSource;
  readonly deliveryId: DeliveryIdSource;
  readonly otherEventsId: OtherEventsId;
  readonly events: ProviderEvents;
  /** A push body → one push, or one per ref it changed (each de-duplicated on its own). */
  readonly normalize: (body: JsonRecord, meta: DeliveryMeta) => NormalizedPush | NormalizedPush[];
}
