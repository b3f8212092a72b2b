import { describe, expect, it } from 'vitest';
import type { RepositoryConfig } from '../../../lib/fleet/fleet-config.js';
import type { MissedPush } from '../../../lib/reconcile/behind.js';
import { missedWebhookEvent, missedWebhookMessage } from '../../../lib/reconcile/missed-push-event.js';
import { ZERO_SHA } from '../../../lib/webhook/push-event.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const NOW = new Date('2026-09-01T10:00:00Z');

function push(repo: RepositoryConfig, repoKey: string, ref: string, synced: string[] = [A]): MissedPush {
  return {
    key: `${repoKey}:${ref}:${C}`,
    repoKey,
    repo,
    ref,
    sha: C,
    head: 'refs/heads/main',
    apps: synced.map((s, i) => ({
      cluster: 'hub',
      namespace: 'argocd',
      name: `app-${i}`,
      synced: s,
      since: 0,
    })),
    since: 0,
  };
}

describe('missedWebhookEvent', () => {
  it('rebuilds a GitHub branch push with unknown files, so fan-out compares or fails open', () => {
    const event = missedWebhookEvent(
      push(
        { url: 'https://x-access-token:t0k@github.com/org/gitops.git' },
        'github.com/org/gitops',
        'refs/heads/main',
      ),
      NOW,
    );
    expect(event).toEqual({
      provider: 'github',
      deliveryId: `reconcile:github.com/org/gitops:refs/heads/main:${C}`,
      repo: {
        fullName: 'org/gitops',
        webUrl: 'https://github.com/org/gitops',
        urls: ['https://github.com/org/gitops', 'https://github.com/org/gitops.git'],
        defaultBranch: 'main',
        apiBaseUrl: 'https://api.github.com',
      },
      ref: 'refs/heads/main',
      refType: 'branch',
      refName: 'main',
      before: A,
      after: C,
      touchedDefaultBranch: true,
      created: false,
      deleted: false,
      forced: false,
      author: { name: 'unknown (missed webhook)' },
      commitTitle: expect.stringContaining('missed webhook: main moved to cccccccccccc'),
      commitUrl: `https://github.com/org/gitops/commit/${C}`,
      changedFiles: { known: false, reason: 'no-commit-list' },
      receivedAt: NOW.toISOString(),
    });
    expect(JSON.stringify(event)).not.toContain('t0k');
  });

  it.each([
    ['a tag never touches the default branch', 'refs/tags/v1.2.0', 'tag', 'v1.2.0', false],
    [
      'a branch other than the default does not either',
      'refs/heads/release/1.x',
      'branch',
      'release/1.x',
      false,
    ],
  ])('%s', (_name, ref, refType, refName, touched) => {
    const event = missedWebhookEvent(
      push({ url: 'https://github.com/org/gitops' }, 'github.com/org/gitops', ref),
      NOW,
    );
    expect(event).toMatchObject({ ref, refType, refName, touchedDefaultBranch: touched });
  });

  it('takes the provider and API from the fleet file for a self-hosted GitLab', () => {
    const event = missedWebhookEvent(
      push(
        {
          url: 'https://code.example/group/sub/gitops.git',
          provider: 'gitlab',
          apiUrl: 'https://code.example/api/v4',
        },
        'code.example/group/sub/gitops',
        'refs/heads/main',
      ),
      NOW,
    );
    expect(event).toMatchObject({
      provider: 'gitlab',
      repo: { fullName: 'group/sub/gitops', apiBaseUrl: 'https://code.example/api/v4' },
      commitUrl: `https://code.example/group/sub/gitops/-/commit/${C}`,
    });
  });

  it('names no API or commit page for a host it does not know', () => {
    const event = missedWebhookEvent(
      push({ url: 'http://127.0.0.1:9999/gitops.git' }, '127.0.0.1/gitops', 'refs/heads/main'),
      NOW,
    );
    expect(event.repo.apiBaseUrl).toBeUndefined();
    expect(event.commitUrl).toBeUndefined();
    expect(event.repo.webUrl).toBe('http://127.0.0.1:9999/gitops');
  });

  it('uses all zeros as before when the behind apps were compared at different commits (fan-out fails open)', () => {
    const event = missedWebhookEvent(
      push({ url: 'https://github.com/org/gitops' }, 'github.com/org/gitops', 'refs/heads/main', [A, B]),
      NOW,
    );
    expect(event.before).toBe(ZERO_SHA);
  });

  it('wraps it as a schedule-triggered push marked as a missed webhook', () => {
    const message = missedWebhookMessage(
      push({ url: 'https://github.com/org/gitops' }, 'github.com/org/gitops', 'refs/heads/main'),
      NOW,
    );
    expect(message).toMatchObject({
      type: 'push',
      trigger: 'schedule',
      missedWebhook: true,
      event: { after: C },
    });
  });
});
