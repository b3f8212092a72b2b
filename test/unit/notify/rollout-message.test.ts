import { describe, expect, it } from 'vitest';
import {
  renderAppNotice,
  renderOverflowNotice,
  renderRolloutMessage,
  shortRef,
} from '../../../lib/notify/rollout-message.js';
import type { SlackBlock, SlackMessage } from '../../../lib/notify/types.js';
import type { AppState } from '../../../lib/rollouts/state-model.js';
import type { SecretCheck } from '../../../lib/secrets/secret-check.js';
import { appRecord, manyApps, rolloutSnapshot, SHA } from '../../helpers/slack.js';

function textOf(message: SlackMessage): string {
  return message.blocks.map(blockText).join('\n');
}

function blockText(block: SlackBlock): string {
  if (block.type === 'divider') return '';
  if (block.type === 'context') return block.elements.map((e) => e.text).join(' ');
  return block.text.text;
}

const missingProperty: SecretCheck = {
  externalSecret: 'shop/db-credentials',
  field: 'spec.data[0]',
  key: 'prod/shop/db',
  property: 'password',
  outcome: 'missing-property',
  message: 'key password does not exist in secret prod/shop/db',
};

describe('renderRolloutMessage', () => {
  it('shows the repo, the short SHA linked to the commit, the ref, the author and the title', () => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot([appRecord('web')])));
    expect(text).toContain('<https://github.com/org/gitops|*org/gitops*>');
    expect(text).toContain(`<https://github.com/org/gitops/commit/${SHA}|\`3f2a9c1\`>`);
    expect(text).toContain('on `main` by Jane Doe');
    expect(text).toContain('>Bump web to 1.4.2');
  });

  it('links the rollout page when PUBLIC_URL is known, and nothing when it is not', () => {
    const url = `https://sync.example.com/ui/rollouts/${SHA}`;
    const linked = textOf(renderRolloutMessage({ ...rolloutSnapshot([appRecord('web')]), pageUrl: url }));
    expect(linked).toContain(`<${url}|rollout page>`);
    expect(textOf(renderRolloutMessage(rolloutSnapshot([appRecord('web')])))).not.toContain('rollout page');
  });

  it.each<[string, AppState[], string, string]>([
    [
      'a rollout still syncing is in progress',
      ['syncing', 'synced'],
      ':hourglass_flowing_sand:',
      'in-progress',
    ],
    ['a rollout nothing has moved on yet is pending', ['matched'], ':hourglass:', 'pending'],
    ['a rollout where every app synced succeeded', ['synced', 'synced'], ':white_check_mark:', 'succeeded'],
    ['a rollout where nothing synced failed', ['failed', 'timeout'], ':x:', 'failed'],
    ['a rollout with some apps synced is partial', ['synced', 'degraded'], ':warning:', 'partial'],
    ['a rollout held back by secrets is blocked', ['blocked'], ':no_entry:', 'blocked'],
  ])('%s', (_name, states, emoji, status) => {
    const message = renderRolloutMessage(
      rolloutSnapshot(states.map((state, i) => appRecord(`app-${i}`, { state }))),
    );
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: `${emoji} org/gitops 3f2a9c1: ${status}`, emoji: true },
    });
    expect(textOf(message)).toContain(`${emoji} *${status}*`);
  });

  it('counts apps per state', () => {
    const apps = [
      appRecord('a', { state: 'synced' }),
      appRecord('b', { state: 'synced' }),
      appRecord('c', { state: 'failed' }),
      appRecord('d', { state: 'syncing' }),
    ];
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps)));
    expect(text).toContain(
      '4 apps: :hourglass_flowing_sand: 1 syncing · :white_check_mark: 2 synced · :x: 1 failed',
    );
  });

  it.each<[string, AppState, string]>([
    [
      'a failed app shows its sync message',
      'failed',
      ':x: *failed* · `hub-eu` argocd/web — one or more objects failed',
    ],
    [
      'a degraded app shows its message',
      'degraded',
      ':warning: *degraded* · `hub-eu` argocd/web — one or more objects failed',
    ],
    ['an app that timed out shows its message', 'timeout', ':alarm_clock: *timeout* · `hub-eu` argocd/web —'],
    ['an app in error shows its message', 'error', ':boom: *error* · `hub-eu` argocd/web —'],
    [
      'an app left out of sync shows its message',
      'out-of-sync',
      ':large_yellow_circle: *out-of-sync* · `hub-eu` argocd/web',
    ],
  ])('%s', (_name, state, line) => {
    const app = appRecord('web', { state, message: 'one or more objects failed to apply' });
    expect(textOf(renderRolloutMessage(rolloutSnapshot([app])))).toContain(line);
  });

  it('leaves synced apps out of the list', () => {
    const apps = [appRecord('web', { state: 'synced' }), appRecord('api', { state: 'failed' })];
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps)));
    expect(text).toContain('argocd/api');
    expect(text).not.toContain('argocd/web');
  });

  it('shows sync and health when an app has no message', () => {
    const app = appRecord('web', { state: 'degraded', syncStatus: 'Synced', health: 'Degraded' });
    expect(textOf(renderRolloutMessage(rolloutSnapshot([app])))).toContain('argocd/web — Synced/Degraded');
  });

  it('names the ExternalSecret, the key and the property of a blocked app', () => {
    const app = appRecord('shop', { state: 'blocked', secrets: [missingProperty] });
    expect(textOf(renderRolloutMessage(rolloutSnapshot([app])))).toContain(
      'ExternalSecret `shop/db-credentials` key `prod/shop/db` property `password`: missing-property',
    );
  });

  it('names the kind of objects that are not Applications', () => {
    const app = appRecord('platform', { state: 'failed', kind: 'ApplicationSet' });
    expect(textOf(renderRolloutMessage(rolloutSnapshot([app])))).toContain(
      'argocd/platform (ApplicationSet)',
    );
  });

  it.each<[string, AppState]>([
    ['a syncing app is only counted while the rollout runs', 'syncing'],
    ['a refreshed app is only counted while the rollout runs', 'refreshed'],
    ['a matched app is only counted while the rollout runs', 'matched'],
  ])('%s', (_name, state) => {
    const apps = [appRecord('moving', { state }), appRecord('broken', { state: 'failed' })];
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps)));
    expect(text).toContain('argocd/broken');
    expect(text).not.toContain('argocd/moving');
    expect(text).toContain(`1 ${state}`);
  });

  it('stays compact while 500 apps refresh: counts per cluster, the failures listed, nothing else', () => {
    const apps = [
      ...manyApps(250, { state: 'refreshed', destination: 'spoke-a' }),
      ...manyApps(250, { state: 'syncing', destination: 'spoke-b' }).map((a) => ({
        ...a,
        name: `b-${a.name}`,
      })),
      appRecord('broken', { state: 'failed', destination: 'spoke-b' }),
    ];
    const message = renderRolloutMessage(rolloutSnapshot(apps));
    const text = textOf(message);
    expect(text).toContain('`spoke-a` 0/250 done · :arrows_counterclockwise: 250');
    expect(text).toContain('`spoke-b` 1/251 done · :x: 1 · :hourglass_flowing_sand: 250');
    expect(text).toContain('argocd/broken');
    expect(text).not.toContain('app-000');
    expect(message.blocks.length).toBeLessThanOrEqual(7);
  });

  it('lists every app not synced once the rollout ended, failures first', () => {
    const apps = [
      appRecord('a-manual', { state: 'out-of-sync' }),
      appRecord('z-broken', { state: 'failed' }),
    ];
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps)));
    expect(text.indexOf('z-broken')).toBeLessThan(text.indexOf('a-manual'));
  });

  it.each([
    ['the commit title', { commitTitle: 'Use <!channel> & <@U123> for <b>' }],
    ['the author', { author: 'Eve <!here> & co' }],
  ])('escapes &, < and > in %s', (_name, overrides) => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot([appRecord('web')], overrides)));
    expect(text).not.toMatch(/<!channel>|<!here>|<@U123>|<b>/);
    expect(text).toMatch(/&lt;!(channel|here)&gt; &amp;/);
  });

  it('escapes an app message and keeps it on one line', () => {
    const app = appRecord('web', { state: 'failed', message: 'bad <value>\n& more' });
    expect(textOf(renderRolloutMessage(rolloutSnapshot([app])))).toContain('— bad &lt;value&gt; &amp; more');
  });

  it('never shows credentials a repository URL or an app message carries', () => {
    const snapshot = rolloutSnapshot(
      [
        appRecord('web', {
          state: 'failed',
          message: 'fetch https://bot:ghp_abcdefghijklmnopqrstuvwxyz012345@github.com/x failed',
        }),
      ],
      { repo: { fullName: 'org/gitops', webUrl: 'https://bot:s3cr3t@github.com/org/gitops' } },
    );
    const message = renderRolloutMessage(snapshot);
    const all = JSON.stringify(message);
    expect(all).not.toContain('s3cr3t');
    expect(all).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz012345');
    expect(textOf(message)).toContain('<https://github.com/org/gitops|*org/gitops*>');
  });

  it('shows the SHA without a link when there is no commit URL', () => {
    const { commitUrl: _drop, ...withoutUrl } = rolloutSnapshot([appRecord('web')]);
    expect(textOf(renderRolloutMessage(withoutUrl))).toContain(' `3f2a9c1` on `main`');
  });

  it('says when a rollout was started by the schedule rather than a webhook', () => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot([appRecord('web')], { trigger: 'schedule' })));
    expect(text).toContain('by Jane Doe (schedule)');
  });

  it('names a registry rollout by its digest (sha256: and seven hex), a commit by its short SHA', () => {
    const hex = 'ab'.repeat(32);
    const image = rolloutSnapshot([appRecord('web')], { trigger: 'registry', sha: hex });
    const message = renderRolloutMessage(image);
    expect(textOf(message)).toContain('`sha256:abababa`');
    expect(message.text).toContain('sha256:abababa');
    expect(textOf(renderRolloutMessage(rolloutSnapshot([appRecord('web')])))).not.toContain('sha256:');
  });

  it('keeps a 200-app rollout within 50 blocks and says how many more apps there are', () => {
    const message = renderRolloutMessage(rolloutSnapshot(manyApps(200, { state: 'failed' })));
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(textOf(message)).toContain('…and 160 more apps not synced');
    expect(textOf(message)).toContain('argocd/app-039');
    expect(textOf(message)).not.toContain('argocd/app-040');
  });

  it('keeps every section under 3000 characters when app messages are long', () => {
    const apps = manyApps(40, { state: 'failed', message: 'x'.repeat(5000) });
    const message = renderRolloutMessage(rolloutSnapshot(apps), {
      maxAppsListed: 40,
      maxReasonChars: 2000,
      maxDetailChars: 2000,
    });
    for (const block of message.blocks) expect(blockText(block).length).toBeLessThanOrEqual(3000);
    expect(message.blocks.length).toBeLessThanOrEqual(50);
  });

  it('gives a plain fallback text with the status and counts', () => {
    const apps = [appRecord('a', { state: 'synced' }), appRecord('b', { state: 'failed' })];
    expect(renderRolloutMessage(rolloutSnapshot(apps)).text).toBe(
      'org/gitops 3f2a9c1 (main) by Jane Doe: partial — 1 synced, 1 failed',
    );
  });

  it('renders the same snapshot to the same message (so unchanged content sends no update)', () => {
    const snapshot = rolloutSnapshot(manyApps(5, { state: 'syncing' }));
    expect(renderRolloutMessage(snapshot)).toEqual(renderRolloutMessage(structuredClone(snapshot)));
  });
});

describe('renderAppNotice', () => {
  it('gives a blocked app every ExternalSecret problem with its reason, never a value', () => {
    const app = appRecord('shop', {
      state: 'blocked',
      secrets: [
        missingProperty,
        {
          externalSecret: 'shop/api',
          field: 'spec.dataFrom[0].extract',
          key: 'prod/api',
          outcome: 'missing-secret',
        },
        { externalSecret: 'shop/ok', field: 'spec.data[0]', key: 'prod/ok', outcome: 'ok' },
      ],
    });
    const text = textOf(renderAppNotice(rolloutSnapshot([app]), app, { standalone: false }));
    expect(text).toContain(':no_entry: *blocked* · `hub-eu` argocd/shop');
    expect(text).toContain(
      '• ExternalSecret `shop/db-credentials` key `prod/shop/db` property `password`: missing-property — key password does not exist in secret prod/shop/db',
    );
    expect(text).toContain('• ExternalSecret `shop/api` key `prod/api`: missing-secret');
    expect(text).not.toContain('shop/ok');
  });

  it('quotes a failed app its whole message, line by line', () => {
    const app = appRecord('web', {
      state: 'failed',
      syncStatus: 'OutOfSync',
      health: 'Missing',
      message: 'a\nb <c>',
    });
    const text = textOf(renderAppNotice(rolloutSnapshot([app]), app, { standalone: false }));
    expect(text).toContain('OutOfSync/Missing');
    expect(text).toContain('>a\n>b &lt;c&gt;');
  });

  it('says which push it belongs to when it stands alone (webhook mode)', () => {
    const app = appRecord('web', { state: 'failed' });
    const message = renderAppNotice(rolloutSnapshot([app]), app, { standalone: true });
    expect(textOf(message)).toContain('*org/gitops*');
    expect(message.text).toBe('org/gitops 3f2a9c1: hub-eu argocd/web failed');
  });

  it('is a short thread reply text when it does not stand alone', () => {
    const app = appRecord('web', { state: 'timeout' });
    expect(renderAppNotice(rolloutSnapshot([app]), app, { standalone: false }).text).toBe(
      'hub-eu argocd/web timeout',
    );
  });
});

describe('renderOverflowNotice', () => {
  it('names many failed apps in one message within the block limit', () => {
    const apps = manyApps(120, { state: 'failed' });
    const message = renderOverflowNotice(rolloutSnapshot(apps), apps, { standalone: false });
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(textOf(message)).toContain('120 more apps failed or were blocked:');
    expect(textOf(message)).toContain('…and 80 more');
  });
});

describe('shortRef', () => {
  it.each([
    ['a branch ref loses refs/heads/', 'refs/heads/release/1.0', 'release/1.0'],
    ['a tag ref loses refs/tags/', 'refs/tags/v1.2.0', 'v1.2.0'],
    ['a short name stays as it is', 'main', 'main'],
  ])('%s', (_name, ref, short) => {
    expect(shortRef(ref)).toBe(short);
  });
});
