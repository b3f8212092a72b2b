import { BadRequestError } from '../errors.js';
import { normalizeAzureDevOpsPush } from './azure-devops.js';
import { normalizeBitbucketPush } from './bitbucket.js';
import { normalizeBitbucketServerPush } from './bitbucket-server.js';
import { checkEcrPush, ECR_IMAGE_ACTION, normalizeEcrPush } from './ecr.js';
import { normalizeGenericPush } from './generic.js';
import { GHCR_EVENT, ghcrIgnored, isPackageEvent, normalizeGhcrPackage } from './ghcr.js';
import { normalizeGiteaPush } from './gitea.js';
import { normalizeGitHubPush } from './github.js';
import { CHECK_RUN_EVENTS, readCheckRunAction } from './github-check-run.js';
import { normalizeGitLabPush } from './gitlab.js';
import { checkHarborPush, HARBOR_PUSH, normalizeHarborPush } from './harbor.js';
import { type JsonRecord, quoted } from './payload-fields.js';
import type { WebhookProvider } from './provider-model.js';
import type { GitProvider } from './push-event.js';

/**
 * Every Git host `POST /webhooks/{provider}` takes: how it signs, where it names the event and the
 * delivery, which events are pushes or pings, and its payload normaliser. `provider-engine.ts` reads a
 * delivery through its row; events other than a push or ping are answered 202 ignored.
 */
export const WEBHOOK_PROVIDERS: Readonly<Record<GitProvider, WebhookProvider>> = {
  github: {
    name: 'github',
    signature: { kind: 'github-sha256' },
    eventName: { header: ['x-github-event'] },
    deliveryId: { header: ['x-github-delivery'] },
    otherEventsId: 'first',
    events: {
      // `package`: GHCR (a container version published), a registry push like ECR's.
      push: ['push', GHCR_EVENT],
      ping: ['ping'],
      checkPush: checkGitHubPush,
      action: { events: CHECK_RUN_EVENTS, read: readCheckRunAction },
    },
    normalize: (body, meta) =>
      isPackageEvent(body) ? normalizeGhcrPackage(body, meta) : normalizeGitHubPush(body, meta),
  },
  gitlab: {
    name: 'gitlab',
    signature: { kind: 'token', header: 'x-gitlab-token' },
    eventName: { header: ['x-gitlab-event'] },
    // `Idempotency-Key` stays the same across retries; `X-Gitlab-Event-UUID` names the event. Without
    // either (older GitLab, or a proxy that drops them) the body's SHA-256 still catches a redelivery.
    deliveryId: { header: ['idempotency-key', 'x-gitlab-event-uuid'], orBodyHash: true },
    otherEventsId: 'first',
    events: { push: ['Push Hook', 'Tag Push Hook', 'System Hook'], checkPush: checkGitLabPush },
    normalize: normalizeGitLabPush,
  },
  bitbucket: {
    name: 'bitbucket',
    signature: { kind: 'hmac-sha256', names: ['x-hub-signature'], prefix: 'sha256=' },
    eventName: { header: ['x-event-key'] },
    deliveryId: { header: ['x-request-uuid'] },
    otherEventsId: 'any-header',
    events: { push: ['repo:push'] },
    normalize: normalizeBitbucketPush,
  },
  'bitbucket-server': {
    name: 'bitbucket-server',
    signature: { kind: 'hmac-sha256', names: ['x-hub-signature'], prefix: 'sha256=' },
    eventName: { header: ['x-event-key'] },
    deliveryId: { header: ['x-request-id'] },
    otherEventsId: 'any-header',
    events: { push: ['repo:refs_changed'], ping: ['diagnostics:ping'] },
    normalize: normalizeBitbucketServerPush,
  },
  'azure-devops': {
    name: 'azure-devops',
    signature: { kind: 'basic-auth' },
    eventName: { bodyField: 'eventType', otherwise: 'unknown' },
    deliveryId: { bodyField: 'id' },
    otherEventsId: 'body-hash',
    events: { push: ['git.push'] },
    normalize: normalizeAzureDevOpsPush,
  },
  gitea: {
    name: 'gitea',
    // Forgejo sends its own headers besides Gitea's; Gogs only its own. All signatures are bare hex.
    signature: {
      kind: 'hmac-sha256',
      names: ['x-gitea-signature', 'x-forgejo-signature', 'x-gogs-signature'],
      prefix: '',
    },
    eventName: { header: ['x-gitea-event', 'x-forgejo-event', 'x-gogs-event'] },
    deliveryId: { header: ['x-gitea-delivery', 'x-forgejo-delivery', 'x-gogs-delivery'] },
    otherEventsId: 'any-header',
    events: { push: ['push'] },
    normalize: normalizeGiteaPush,
  },
  generic: {
    name: 'generic',
    signature: { kind: 'hmac-sha256', names: ['x-signature-256'], prefix: 'sha256=' },
    eventName: { fixed: 'push' },
    deliveryId: { header: ['x-delivery-id'], orBodyHash: true },
    otherEventsId: 'first',
    events: { push: ['push'] },
    normalize: normalizeGenericPush,
  },
  ecr: {
    name: 'ecr',
    // The EventBridge event as the body, signed like the generic endpoint. In AWS the rule invokes the
    // function directly (no signature: AWS is the caller), see lib/webhook/handle-registry-event.ts.
    signature: { kind: 'hmac-sha256', names: ['x-signature-256'], prefix: 'sha256=' },
    eventName: { fixed: ECR_IMAGE_ACTION },
    deliveryId: { bodyField: 'id' },
    otherEventsId: 'body-hash',
    events: { push: [ECR_IMAGE_ACTION], checkPush: checkEcrPush },
    normalize: normalizeEcrPush,
  },
  harbor: {
    name: 'harbor',
    // Harbor sends the webhook policy's "Auth Header" as `Authorization`, compared in constant time.
    signature: { kind: 'token', header: 'authorization' },
    eventName: { bodyField: 'type', otherwise: 'unknown' },
    // Harbor names no delivery: a redelivery of the same body is the same delivery.
    deliveryId: { header: [], orBodyHash: true },
    otherEventsId: 'body-hash',
    events: { push: [HARBOR_PUSH], checkPush: checkHarborPush },
    normalize: normalizeHarborPush,
  },
};

const GITLAB_PUSH_KINDS: Readonly<Record<string, string>> = {
  'Push Hook': 'push',
  'Tag Push Hook': 'tag_push',
};

/** A system hook carries every kind of event (only pushes are handled); a project hook names its own. */
function checkGitLabPush(eventName: string, body: JsonRecord): string | undefined {
  const kind = gitlabKind(body);
  if (eventName === 'System Hook') {
    return kind === 'push' || kind === 'tag_push'
      ? undefined
      : `system hook ${quoted(kind ?? 'unknown', 60)} is not handled`;
  }
  if (kind !== undefined && kind !== GITLAB_PUSH_KINDS[eventName]) {
    throw new BadRequestError(`body is not a ${eventName}: object_kind is ${quoted(kind, 60)}`, {
      code: 'invalid-payload',
    });
  }
  return undefined;
}

function gitlabKind(body: JsonRecord): string | undefined {
  const kind = body.object_kind ?? body.event_name;
  return typeof kind === 'string' && kind !== '' ? kind : undefined;
}

/** A body must be the event it is named as (a `package` body is read as a registry push); 400 otherwise. */
function checkGitHubPush(eventName: string, body: JsonRecord): string | undefined {
  if ((eventName === GHCR_EVENT) !== isPackageEvent(body)) {
    throw new BadRequestError(`body is not a GitHub ${eventName} event`, { code: 'invalid-payload' });
  }
  return eventName === GHCR_EVENT ? ghcrIgnored(body) : undefined;
}
