import { describe, expect, it } from 'vitest';
import { renderAppNotice, renderRolloutMessage } from '../../../lib/notify/rollout-message.js';
import type { SlackBlock, SlackMessage } from '../../../lib/notify/types.js';
import type { ResourceFailure } from '../../../lib/rollouts/app-model.js';
import { appRecord, rolloutSnapshot } from '../../helpers/slack.js';

const textOf = (message: SlackMessage) => message.blocks.map(blockText).join('\n');
function blockText(block: SlackBlock): string {
  if (block.type === 'divider') return '';
  if (block.type === 'context') return block.elements.map((e) => e.text).join(' ');
  return block.text.text;
}

const denied: ResourceFailure = {
  kind: 'Deployment',
  group: 'apps',
  namespace: 'shop',
  name: 'web',
  status: 'SyncFailed',
  message: 'admission webhook "validate.kyverno.svc-fail" denied the request: Running as root is not allowed',
};
const failedApp = appRecord('web', {
  state: 'failed',
  destination: 'spoke-a',
  message: 'one or more synchronization tasks completed unsuccessfully',
  failures: [denied, { ...denied, kind: 'Service', message: 'field is immutable' }],
});

describe('the rollout message carries what on-call needs', () => {
  it('names the real failure reason instead of the generic operation message', () => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot([failedApp])));
    expect(text).toContain(
      '— Deployment shop/web: admission webhook "validate.kyverno.svc-fail" denied the request: Running as root is not allowed (+1 more)',
    );
    expect(text).not.toContain('one or more synchronization tasks');
  });

  it("lists every failed resource in the app's own notice", () => {
    const text = textOf(renderAppNotice(rolloutSnapshot([failedApp]), failedApp, { standalone: false }));
    expect(text).toContain('• Deployment shop/web: admission webhook');
    expect(text).toContain('• Service shop/web: field is immutable');
  });

  it('shows the destination cluster of an app, and links it to the Argo CD UI when the fleet names one', () => {
    const snapshot = rolloutSnapshot([failedApp], { argocdUrls: { 'hub-eu': 'https://argocd.example' } });
    expect(textOf(renderRolloutMessage(snapshot))).toContain(
      '`hub-eu` <https://argocd.example/applications/argocd/web|argocd/web> → `spoke-a`',
    );
  });

  it('links nothing for a cluster without argocdUrl and shows no arrow for an app deploying in place', () => {
    const app = appRecord('web', { state: 'failed', destination: 'hub-eu' });
    const text = textOf(renderRolloutMessage(rolloutSnapshot([app], { argocdUrls: { other: 'https://x' } })));
    expect(text).toContain(':x: *failed* · `hub-eu` argocd/web');
    expect(text).not.toContain('→');
  });

  it('shows elapsed time and the deadline while it runs, in whole minutes', () => {
    const snapshot = rolloutSnapshot([appRecord('web', { state: 'syncing' })], {
      receivedAt: '2026-11-30T10:00:00.000Z',
      deadline: '2026-11-30T10:10:00.000Z',
      renderedAt: '2026-11-30T10:03:59.000Z',
    });
    expect(textOf(renderRolloutMessage(snapshot))).toContain(
      ':stopwatch: started 10:00 UTC · 3 min elapsed · deadline 10:10 UTC',
    );
  });

  it('shows how long it took once it ended', () => {
    const snapshot = rolloutSnapshot([appRecord('web', { state: 'synced' })], {
      receivedAt: '2026-11-30T10:00:00.000Z',
      finishedAt: '2026-11-30T10:02:14.000Z',
    });
    expect(textOf(renderRolloutMessage(snapshot))).toContain(':stopwatch: took 2 min 14 s');
  });

  it('names a tag pushed on the same commit, in the message and its fallback text', () => {
    const snapshot = rolloutSnapshot([appRecord('web', { state: 'synced' })], {
      refs: ['refs/heads/main', 'refs/tags/v1.4.2'],
    });
    const message = renderRolloutMessage(snapshot);
    expect(textOf(message)).toContain('on `main` · tag `v1.4.2` by Jane Doe');
    expect(message.text).toContain('(main, v1.4.2)');
  });

  it('says "tag" for a rollout that started from a tag push', () => {
    const snapshot = rolloutSnapshot([appRecord('web', { state: 'synced' })], {
      ref: 'refs/tags/v2.0.0',
      refs: ['refs/tags/v2.0.0'],
    });
    expect(textOf(renderRolloutMessage(snapshot))).toContain('on tag `v2.0.0` by');
  });

  it('bounds the per-cluster lines of a large fleet', () => {
    const apps = Array.from({ length: 40 }, (_, i) =>
      appRecord(`app-${i}`, { state: 'syncing', destination: `spoke-${String(i).padStart(2, '0')}` }),
    );
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps)));
    expect(text).toContain('`spoke-11` 0/1 done');
    expect(text).not.toContain('`spoke-12`');
    expect(text).toContain('and 28 more clusters: 0/28 done');
  });
});
