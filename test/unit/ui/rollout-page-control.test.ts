import { describe, expect, it } from 'vitest';
import type { AppRecord, DecisionRecord } from '../../../lib/rollouts/app-model.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import { renderErrorPage } from '../../../lib/ui/error-page.js';
import { renderRolloutPage } from '../../../lib/ui/rollout-page.js';
import { renderRolloutsPage } from '../../../lib/ui/rollouts-page.js';

const SHA = 'a'.repeat(40);
const NOW = new Date('2026-12-01T10:00:00.000Z');
const options = { nonce: 'n0nce', argocdUrls: {}, now: NOW };

const app = (name: string, extra: Partial<AppRecord> = {}): AppRecord => ({
  cluster: 'hub',
  namespace: 'argocd',
  name,
  kind: 'Application',
  state: 'synced',
  ...extra,
});

const base = (extra: Partial<Rollout> = {}): Rollout => ({
  sha: SHA,
  repo: 'org/gitops',
  repoUrl: 'https://github.com/org/gitops',
  ref: 'refs/heads/main',
  refs: ['refs/heads/main'],
  trigger: 'webhook',
  receivedAt: '2026-12-01T09:50:00.000Z',
  status: 'in-progress',
  counts: {},
  decisions: {},
  apps: [],
  ...extra,
});

/** canary done, prod-eu halted on a denied Deployment, rest held behind it. */
const halted = (): Rollout =>
  base({
    status: 'halted',
    waves: [
      {
        name: 'canary',
        state: 'done',
        clusters: ['staging'],
        openedAt: '2026-12-01T09:50:00.000Z',
        doneAt: '2026-12-01T09:55:00.000Z',
      },
      {
        name: 'prod-eu',
        state: 'halted',
        clusters: ['prod-eu-1'],
        openedAt: '2026-12-01T09:56:00.000Z',
        reason: '1 failed (maxUnhealthy 0): hub argocd/shop-eu',
      },
      { name: 'rest', state: 'waiting', clusters: ['prod-us'] },
    ],
    apps: [
      app('shop-staging', { destination: 'staging', wave: 'canary' }),
      app('shop-eu', {
        destination: 'prod-eu-1',
        wave: 'prod-eu',
        state: 'failed',
        message: 'one or more synchronization tasks completed unsuccessfully',
        failures: [
          {
            kind: 'Deployment',
            name: 'web',
            namespace: 'shop',
            status: 'SyncFailed',
            message: 'admission webhook "policy.example" denied the request: image tag latest',
          },
        ],
      }),
      app('shop-us', {
        destination: 'prod-us',
        wave: 'rest',
        state: 'held',
        message: 'wave rest waits for prod-eu',
      }),
    ],
    actions: [
      { action: 'halt', by: 'gitops-sync', at: '2026-12-01T09:58:00.000Z', detail: 'maxUnhealthy 0' },
    ],
    ungated: [{ cluster: 'hub-eu', namespace: 'argocd', reason: 'polling on, control: pin off' }],
  });

describe('the rollout page under release control', () => {
  it('shows each wave with its state, times and halt reason, its apps by destination', () => {
    const page = renderRolloutPage(halted(), options);
    expect(page).toMatch(/data-wave="canary" data-wave-state="done"[\s\S]*data-destination="staging"/);
    expect(page).toContain('opened <time datetime="2026-12-01T09:50:00.000Z"');
    expect(page).toContain('10 min 0 s ago');
    expect(page).toMatch(/data-wave="prod-eu" data-wave-state="halted"[\s\S]*1 failed \(maxUnhealthy 0\)/);
    expect(page).toMatch(/data-wave="rest" data-wave-state="waiting"[\s\S]*data-app="hub\/argocd\/shop-us"/);
    expect(page.indexOf('data-wave="canary"')).toBeLessThan(page.indexOf('data-wave="prod-eu"'));
  });

  it('says the rollout halted, at which wave and why, and stops refreshing', () => {
    const page = renderRolloutPage(halted(), options);
    expect(page).toMatch(/data-control="halted">Halted at wave <b>prod-eu<\/b>: 1 failed/);
    expect(page).toContain('data-running="false"');
  });

  it('puts failures first with Argo CD per-resource reason, not the generic sync message', () => {
    const page = renderRolloutPage(halted(), options);
    const failures = page.indexOf('id="failures"');
    expect(failures).toBeGreaterThan(-1);
    expect(failures).toBeLessThan(page.indexOf('id="apps"'));
    expect(page).toContain('Deployment: admission webhook &quot;policy.example&quot; denied the request');
    expect(page).toContain('Deployment shop/web: admission webhook');
    expect(page).not.toContain('one or more synchronization tasks completed unsuccessfully');
  });

  it('lists held apps with what holds them, the actions, and the ungated notice', () => {
    const page = renderRolloutPage(halted(), options);
    expect(page).toMatch(/id="held"[\s\S]*data-held-apps="1">1 app: wave rest waits for prod-eu/);
    expect(page).toMatch(
      /data-action="halt"><td><time[^>]*>2 min 0 s ago<\/time><\/td><td[^>]*>gitops-sync<\/td>/,
    );
    expect(page).toContain('Not gated:');
    expect(page).toContain('Argo CD on hub-eu (argocd) polls Git itself');
  });

  it('groups the apps one missing secret blocks: one cause, seven apps', () => {
    const secret = {
      field: 'spec.data[0]',
      key: 'prod/db',
      property: 'password',
      outcome: 'missing-secret' as const,
      blocking: true,
    };
    const apps = Array.from({ length: 7 }, (_, i) =>
      app(`svc-${i}`, { state: 'blocked', secrets: [{ ...secret, externalSecret: `ns${i}/db` }] }),
    );
    const page = renderRolloutPage(base({ status: 'blocked', apps: [...apps, app('other')] }), options);
    expect(page.match(/class="cause"/g)).toHaveLength(1);
    expect(page).toContain('data-cause-state="blocked" data-cause-apps="7"');
    expect(page).toContain('secret prod/db property password: missing-secret');
    expect(page).toContain('blocks 7 apps');
  });

  it('shows an unrendered preflight as a note, not as a problem of the app', () => {
    const note = 'Argo CD did not render this app; checked the files in Git instead';
    const page = renderRolloutPage(
      base({
        apps: [
          app('web', {
            secrets: [
              { externalSecret: '(manifests)', field: 'manifests', outcome: 'not-rendered', message: note },
            ],
          }),
        ],
      }),
      options,
    );
    expect(page).toContain(`data-note="not-rendered">${note}</div>`);
    expect(page).not.toContain('class="reasons"');
  });

  it('says who paused it and keeps refreshing; says who aborted it and stops', () => {
    const arn = 'arn:aws:sts::123456789012:assumed-role/ops/alice';
    const paused = renderRolloutPage(
      base({
        status: 'paused',
        actions: [{ action: 'pause', by: arn, at: '2026-12-01T09:59:00.000Z', detail: 'incident 42' }],
      }),
      options,
    );
    expect(paused).toContain('data-control="paused">Paused by <span class="who" title="arn:aws:sts');
    expect(paused).toContain('>ops/alice</span>');
    expect(paused).toContain(': incident 42');
    expect(paused).toContain('data-running="true"');
    const aborted = renderRolloutPage(
      base({
        status: 'aborted',
        actions: [{ action: 'abort', by: 'token', at: '2026-12-01T09:59:30.000Z' }],
      }),
      options,
    );
    expect(aborted).toContain(
      'data-control="aborted">Aborted by <span class="who" title="token">token</span>',
    );
    expect(aborted).toContain('data-running="false"');
  });

  it('lists the matched objects the push did not refresh with their decision', () => {
    const decisions: DecisionRecord[] = [
      { cluster: 'hub', namespace: 'argocd', name: 'web', kind: 'Application', decision: 'refreshed' },
      {
        cluster: 'hub',
        namespace: 'argocd',
        name: 'docs',
        kind: 'Application',
        decision: 'paths-miss',
        detail: 'no file under docs/',
      },
      { cluster: 'hub', namespace: 'argocd', name: 'old', kind: 'Application', decision: 'revision-miss' },
    ];
    const page = renderRolloutPage(base({ apps: [app('web')] }), { ...options, decisions });
    expect(page).toContain('Not refreshed (2)');
    expect(page).toContain('data-decision="paths-miss" data-object="hub/argocd/docs"');
    expect(page).toContain('no file under docs/');
    expect(page).toContain('data-decision="revision-miss"');
    expect(page).not.toContain('data-object="hub/argocd/web"');
  });

  it('renders 5,000 apps over 50 clusters and 3 waves, every one of them, counted at the top', () => {
    const states = ['synced', 'synced', 'synced', 'held', 'failed'] as const;
    const apps = Array.from({ length: 5000 }, (_, i) =>
      app(`app-${i}`, {
        cluster: `c${i % 50}`,
        destination: `d${i % 50}`,
        wave: ['canary', 'prod', 'rest'][i % 3] ?? 'rest',
        state: states[i % 5] ?? 'synced',
        ...(i % 5 === 4
          ? { failures: [{ kind: 'Job', name: 'migrate', status: 'Failed', message: `exit ${i % 2}` }] }
          : {}),
      }),
    );
    const waves = ['canary', 'prod', 'rest'].map((name) => ({ name, state: 'open' as const, clusters: [] }));
    const page = renderRolloutPage(base({ apps, waves }), options);
    expect(page.match(/<li class="app" /g)).toHaveLength(5000);
    expect(page).toContain('<ul class="counts" data-total="5000"><li>5000 apps</li>');
    expect(page).toContain('data-count-state="synced"><a href="?state=synced">3000 synced</a>');
    expect(page).toContain('data-count-state="held"><a href="?state=held">1000 held</a>');
    expect(page).toContain('Needs attention (1000)');
    expect(page.match(/class="cause"/g)).toHaveLength(2);
    expect(page).toContain('…and 480 more');
    expect(page.match(/data-wave="[a-z]+" data-wave-state/g)).toHaveLength(3);
  });
});

describe('the list page and the error page', () => {
  it('shows relative times, durations, authors, a repository filter and the new statuses', () => {
    const items = [
      base({ status: 'halted', author: 'Ada' }),
      base({
        sha: 'b'.repeat(40),
        status: 'succeeded',
        author: 'Bob',
        finishedAt: '2026-12-01T09:52:14.000Z',
      }),
    ];
    const page = renderRolloutsPage(items, { nonce: 'n', now: NOW, repo: 'org/gitops' });
    expect(page).toContain('10 min 0 s ago');
    expect(page).toContain('10 min 0 s so far');
    expect(page).toContain('2 min 14 s');
    expect(page).toContain('<td>Ada</td>');
    expect(page).toContain('data-status="halted"');
    expect(page).toContain('name="repo" value="org/gitops"');
    expect(page).toContain('href="/ui/?repo=org%2Fgitops"');
    expect(page).toContain('data-running="false"');
  });

  it('renders a 404 as a page', () => {
    const page = renderErrorPage(404, 'no rollout for commit <x>', { nonce: 'n' });
    expect(page).toContain('<h1 data-error="404">Not found</h1>');
    expect(page).toContain('no rollout for commit &lt;x&gt;');
  });
});
