import type { PushEvent } from '../../lib/webhook/push-event.js';

/** A whole GitHub push to `acme/gitops`'s main branch, for tests that need a full PushEvent; `over` wins. */
export function githubPushEvent(over: Partial<PushEvent> = {}): PushEvent {
  const repo = 'https://github.com/acme/gitops';
  return {
    provider: 'github',
    deliveryId: 'd-1',
    repo: { fullName: 'acme/gitops', webUrl: repo, urls: [`${repo}.git`], defaultBranch: 'main' },
    ref: 'refs/heads/main',
    refType: 'branch',
    refName: 'main',
    before: 'a'.repeat(40),
    after: 'b'.repeat(40),
    touchedDefaultBranch: true,
    created: false,
    deleted: false,
    forced: false,
    author: { name: 'Ada' },
    commitTitle: 'change web',
    changedFiles: { known: true, files: ['apps/web/d.yaml'] },
    receivedAt: '2030-01-01T00:00:00.000Z',
    ...over,
  };
}
