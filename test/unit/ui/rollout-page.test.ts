import { describe, expect, it } from 'vitest';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import { escapeHtml } from '../../../lib/ui/html.js';
import { renderRolloutPage } from '../../../lib/ui/rollout-page.js';
import { renderRolloutsPage } from '../../../lib/ui/rollouts-page.js';

const SHA = 'e'.repeat(40);
const EVIL = '<script>alert(1)</script>';

const rollout = (extra: Partial<Rollout> = {}): Rollout => ({
  sha: SHA,
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-01T09:00:00.000Z',
  status: 'in-progress',
  counts: {},
  decisions: {},
  apps: [
    { cluster: 'hub', namespace: 'argocd', name: 'web', kind: 'Application', state: 'synced' },
    {
      cluster: 'spoke-a',
      namespace: 'argocd',
      name: 'api',
      kind: 'Application',
      state: 'failed',
      message: 'admission webhook "policy" denied the request',
    },
    { cluster: 'spoke-a', namespace: 'argocd', name: 'previews', kind: 'ApplicationSet', state: 'syncing' },
  ],
  ...extra,
});

const options = {
  nonce: 'n0nce',
  argocdUrls: { hub: 'https://argocd.hub.example' },
  now: new Date('2026-12-01T09:01:00.000Z'),
};

describe('the rollout page', () => {
  it('shows a registry rollout by its digest and tags, beside commits in the list', () => {
    const hex = 'ab'.repeat(32);
    const image = rollout({
      sha: hex,
      repo: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web',
      repoUrl: 'oci://123456789012.dkr.ecr.eu-west-1.amazonaws.com/charts/web',
      ref: '1.4.0',
      refs: ['1.4.0', 'stable'],
      trigger: 'registry',
    });
    const page = renderRolloutPage(image, options);
    expect(page).toContain(`<dt>digest</dt><dd><span class="sha">sha256:${hex}</span></dd>`);
    expect(page).toContain('<dt>tags</dt><dd>1.4.0, stable</dd>');
    expect(page).toContain('<title>sha256:ababab');
    expect(renderRolloutPage(rollout(), options)).toContain(
      `<dt>commit</dt><dd><span class="sha">${SHA}</span></dd>`,
    );
    const list = renderRolloutsPage([image, rollout()], { nonce: 'n', now: options.now });
    expect(list).toContain(`href="/ui/rollouts/${hex}">sha256:abababa</a>`);
    expect(list).toContain(`href="/ui/rollouts/${SHA}">eeeeeee</a>`);
  });

  it('groups the apps by destination cluster with each app, its state and its failure reason', () => {
    const page = renderRolloutPage(rollout(), options);
    expect(page).toContain('data-destination="hub"');
    expect(page).toContain('data-destination="spoke-a"');
    expect(page).toMatch(/data-app="spoke-a\/argocd\/api"[^>]*data-state="failed"/);
    expect(page).toContain('admission webhook &quot;policy&quot; denied the request');
    expect(page).toContain('60 s (running)');
  });

  it('links Applications to Argo CD only where the fleet names its URL', () => {
    const page = renderRolloutPage(rollout(), options);
    expect(page).toContain('href="https://argocd.hub.example/applications/argocd/web"');
    expect(page).not.toContain('/applications/argocd/api');
  });

  it('refreshes itself while the rollout runs and stops once it has ended', () => {
    expect(renderRolloutPage(rollout(), options)).toContain('data-running="true"');
    const done = renderRolloutPage(
      rollout({ status: 'partial', finishedAt: '2026-12-01T09:00:30.000Z' }),
      options,
    );
    expect(done).toContain('data-running="false"');
    expect(done).toContain('30 s');
    expect(done).not.toContain('http-equiv="refresh"');
  });

  it('escapes every value: an app named <script>, a hostile message, a javascript: commit link', () => {
    const page = renderRolloutPage(
      rollout({
        repo: `org/${EVIL}`,
        commitTitle: EVIL,
        author: `"><img src=x onerror=alert(1)>`,
        commitUrl: 'javascript:alert(1)',
        apps: [
          {
            cluster: 'hub',
            namespace: 'argocd',
            name: EVIL,
            kind: 'Application',
            state: 'failed',
            message: EVIL,
          },
        ],
        clusterErrors: { [`edge${EVIL}`]: EVIL },
      }),
      { ...options, argocdUrls: { hub: 'https://argocd.example' } },
    );
    const scripts = page.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts).toEqual(['<script nonce="n0nce">']);
    expect(page).not.toContain('<img');
    expect(page).not.toContain('javascript:');
    expect(page).toContain(escapeHtml(EVIL));
    expect(page).toContain(`/applications/argocd/${encodeURIComponent(EVIL)}`);
  });

  it('lists the latest rollouts, each linking to its page, escaped', () => {
    const page = renderRolloutsPage([rollout({ commitTitle: EVIL, counts: { synced: 2, failed: 1 } })], {
      nonce: 'n',
      now: new Date('2026-12-01T09:05:00.000Z'),
      nextQuery: 'cursor=abc&repo=org%2Fgitops',
    });
    expect(page).toContain(`href="/ui/rollouts/${SHA}"`);
    expect(page).toContain('2 synced, 1 failed');
    expect(page).not.toContain(EVIL);
    expect(page).toContain('href="/ui/?cursor=abc&amp;repo=org%2Fgitops"');
    expect(page).toContain('data-running="true"');
  });
});
