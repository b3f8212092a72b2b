import { describe, expect, it } from 'vitest';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import type { HistoryEntry } from '../../../lib/rollouts/ports/rollout-reader.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import { renderAppHistoryPage } from '../../../lib/ui/app-history-page.js';
import { renderRolloutPage } from '../../../lib/ui/rollout-page.js';

const SHA = 'b'.repeat(40);
const NOW = new Date('2026-12-02T10:00:00.000Z');

const app = (name: string, state: AppRecord['state'], extra: Partial<AppRecord> = {}): AppRecord => ({
  cluster: 'hub',
  namespace: 'argocd',
  name,
  kind: 'Application',
  state,
  ...extra,
});

const rollout: Rollout = {
  sha: SHA,
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-02T09:50:00.000Z',
  status: 'partial',
  counts: {},
  decisions: {},
  apps: [app('api', 'synced'), app('web', 'failed', { message: 'boom' }), app('jobs', 'synced')],
};

const listed = (html: string): string[] =>
  [...html.matchAll(/<li class="app" data-app="([^"]+)"/g)].map((m) => m[1] ?? '');

describe('the rollout page state filter', () => {
  it('lists only the apps in the chosen state, keeps the counts whole and links back to all', () => {
    const page = renderRolloutPage(rollout, { nonce: 'n', argocdUrls: {}, now: NOW, state: 'failed' });
    const section = page.slice(page.indexOf('<section id="apps">'));
    expect(listed(section)).toEqual(['hub/argocd/web']);
    expect(page).toContain('data-state-shown="failed"');
    expect(page).toContain('data-total="3"');
    expect(page).toContain('href="?" data-state-filter=""');
  });

  it('without a filter lists every app, each count a link to its filter and each app a link to its history', () => {
    const page = renderRolloutPage(rollout, { nonce: 'n', argocdUrls: {}, now: NOW });
    const section = page.slice(page.indexOf('<section id="apps">'));
    expect(listed(section).sort()).toEqual(['hub/argocd/api', 'hub/argocd/jobs', 'hub/argocd/web']);
    expect(page).toContain('<a href="?state=synced">2 synced</a>');
    expect(page).toContain('href="/ui/apps/hub/argocd/web" data-history');
  });
});

describe('the app history page', () => {
  const entry = (
    sha: string,
    state: HistoryEntry['state'],
    extra: Partial<HistoryEntry> = {},
  ): HistoryEntry => ({
    cluster: 'hub',
    namespace: 'argocd',
    name: 'web',
    kind: 'Application',
    state,
    sha,
    repo: 'org/gitops',
    ref: 'refs/heads/main',
    trigger: 'webhook',
    receivedAt: '2026-12-02T09:00:00.000Z',
    ...extra,
  });

  it('shows each rollout with its state and the first reason, linking to the rollout and to Argo CD', () => {
    const page = renderAppHistoryPage(
      { cluster: 'hub', namespace: 'argocd', name: 'web' },
      [
        entry('c'.repeat(40), 'failed', {
          failures: [
            {
              kind: 'Deployment',
              name: 'web',
              namespace: 'web',
              status: 'SyncFailed',
              message: 'admission webhook denied <x>',
            },
          ],
          finishedAt: '2026-12-02T09:02:00.000Z',
        }),
        entry('d'.repeat(40), 'synced'),
      ],
      { nonce: 'n', now: NOW, argocdUrl: 'https://argocd.example', nextQuery: 'cursor=abc' },
    );
    expect(page).toContain(`href="/ui/rollouts/${'c'.repeat(40)}"`);
    expect(page).toContain('Deployment web: admission webhook denied &lt;x&gt;');
    expect(page).toContain('href="https://argocd.example/applications/argocd/web"');
    expect(page).toContain('href="?cursor=abc"');
    expect([...page.matchAll(/<tr data-sha=/g)]).toHaveLength(2);
  });

  it('says so when nothing touched the app', () => {
    const page = renderAppHistoryPage({ cluster: 'hub', namespace: 'argocd', name: 'web' }, [], {
      nonce: 'n',
      now: NOW,
    });
    expect(page).toContain('No rollout has touched this app yet.');
  });
});
