import { compareTarget } from '../git/compare-target.js';
import { fetchableRepoUrl } from '../git/repo-url.js';
import type { PushMessage } from '../queue/messages.js';
import type { AppTarget } from '../rollouts/app-model.js';
import { type GitProvider, type PushEvent, type RefType, ZERO_SHA } from '../webhook/push-event.js';
import type { MissedPush } from './behind.js';

export const MISSED_WEBHOOK_AUTHOR = 'unknown (missed webhook)';

/**
 * The push a lost webhook would have delivered, rebuilt from `ls-refs`. The changed files are unknown, so
 * fan-out asks the compare API for `before...after` or refreshes every app following the ref (fail open).
 * `before` is the commit the behind apps were compared at; when they disagree there is no one range to
 * compare, so it is all zeros and fan-out fails open.
 */
export function missedWebhookEvent(push: MissedPush, now: Date): PushEvent {
  const target = compareTarget(push.repo);
  const provider: GitProvider = target?.provider ?? (push.repo.provider === 'gitlab' ? 'gitlab' : 'github');
  const webUrl = webUrlOf(push.repo.url, push.repoKey);
  const refType: RefType = push.ref.startsWith('refs/tags/') ? 'tag' : 'branch';
  const refName = push.ref.replace(/^refs\/(heads|tags)\//, '');
  const befores = new Set(push.apps.map((a) => a.synced.toLowerCase()));
  const before = befores.size === 1 ? ([...befores][0] ?? ZERO_SHA) : ZERO_SHA;
  const defaultBranch = push.head?.startsWith('refs/heads/')
    ? push.head.slice('refs/heads/'.length)
    : undefined;
  const commitUrl =
    target?.provider === 'github'
      ? `${webUrl}/commit/${push.sha}`
      : target?.provider === 'gitlab'
        ? `${webUrl}/-/commit/${push.sha}`
        : undefined;
  return {
    provider,
    deliveryId: missedWebhookDeliveryId(push),
    repo: {
      fullName: push.repoKey.slice(push.repoKey.indexOf('/') + 1),
      webUrl,
      urls: [...new Set([webUrl, safeUrl(push.repo.url) ?? webUrl])],
      ...(defaultBranch === undefined ? {} : { defaultBranch }),
      ...(target === undefined ? {} : { apiBaseUrl: target.apiBaseUrl }),
    },
    ref: push.ref,
    refType,
    refName,
    before,
    after: push.sha,
    touchedDefaultBranch: refType === 'branch' && push.ref === push.head,
    created: false,
    deleted: false,
    forced: false,
    author: { name: MISSED_WEBHOOK_AUTHOR },
    commitTitle: `missed webhook: ${refName} moved to ${push.sha.slice(0, 12)} without a delivery (found by the scheduled reconciliation)`,
    ...(commitUrl === undefined ? {} : { commitUrl }),
    changedFiles: { known: false, reason: 'no-commit-list' },
    receivedAt: now.toISOString(),
  };
}

export function missedWebhookDeliveryId(push: Pick<MissedPush, 'key'>): string {
  return `reconcile:${push.key}`;
}

/** Only the apps found behind are refreshed, not every app of the repository. */
export function missedWebhookMessage(push: MissedPush, now: Date): PushMessage {
  return {
    type: 'push',
    trigger: 'schedule',
    missedWebhook: true,
    event: missedWebhookEvent(push, now),
    apps: targets(push),
  };
}

export function catchUpRetryDeliveryId(push: Pick<MissedPush, 'key'>, now: Date): string {
  return `reconcile-retry:${push.key}@${now.toISOString()}`;
}

/**
 * The catch-up's retry of apps whose record at the commit is `blocked` or `error`: each is preflighted
 * again and refreshed when it passes (`retry`), the same work item an operator's retry sends.
 */
export function catchUpRetryMessage(push: MissedPush, now: Date): PushMessage {
  return {
    type: 'push',
    trigger: 'schedule',
    retry: true,
    event: { ...missedWebhookEvent(push, now), deliveryId: catchUpRetryDeliveryId(push, now) },
    apps: targets(push),
  };
}

function targets(push: MissedPush): AppTarget[] {
  return push.apps.map((a) => ({
    cluster: a.cluster,
    kind: 'Application',
    namespace: a.namespace,
    name: a.name,
  }));
}

/** The repository URL without user info, query or `.git`: never a credential. */
function webUrlOf(url: string, repoKey: string): string {
  return (safeUrl(url) ?? `https://${repoKey}`).replace(/\.git$/i, '');
}

function safeUrl(url: string): string | undefined {
  try {
    return fetchableRepoUrl(url);
  } catch {
    return undefined;
  }
}
