import type { PushMessage } from '../lib/queue/messages.js';
import type { ChangedFiles } from '../lib/webhook/push-event.js';

/** The queue message of a real commit's push; unknown files (truncated) make every app of the repo refresh. */
export function pushMessage(
  repoURL: string,
  commit: { before: string; after: string; path: string },
  filesKnown: boolean,
): PushMessage {
  const changedFiles: ChangedFiles = filesKnown
    ? { known: true, files: [commit.path] }
    : { known: false, reason: 'truncated' };
  return {
    type: 'push',
    trigger: 'webhook',
    event: {
      provider: 'github',
      deliveryId: `bench-${commit.after}`,
      repo: { fullName: 'org/gitops', webUrl: repoURL, urls: [repoURL], defaultBranch: 'main' },
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: commit.before,
      after: commit.after,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'Bench' },
      commitTitle: `bench ${commit.path}`,
      changedFiles,
      receivedAt: new Date().toISOString(),
    },
  };
}
