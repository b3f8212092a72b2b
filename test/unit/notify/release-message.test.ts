import { describe, expect, it } from 'vitest';
import { renderRolloutMessage } from '../../../lib/notify/rollout-message.js';
import type { SlackBlock, SlackMessage } from '../../../lib/notify/types.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import type { WaveProgress } from '../../../lib/rollouts/rollout-model.js';
import { appRecord, manyApps, rolloutSnapshot } from '../../helpers/slack.js';

function textOf(message: SlackMessage): string {
  return message.blocks.map(blockText).join('\n');
}

function blockText(block: SlackBlock): string {
  if (block.type === 'divider') return '';
  if (block.type === 'context') return block.elements.map((e) => e.text).join(' ');
  return block.text.text;
}

const waves: WaveProgress[] = [
  { name: 'canary', state: 'done', clusters: ['staging'] },
  { name: 'prod-eu', state: 'halted', clusters: ['prod-eu-1'], reason: '1 failed (maxUnhealthy 0)' },
  { name: 'rest', state: 'waiting', clusters: [] },
];

const apps: AppRecord[] = [
  appRecord('a', { state: 'synced', wave: 'canary' }),
  appRecord('b', { state: 'synced', wave: 'canary' }),
  appRecord('c', { state: 'synced', wave: 'prod-eu' }),
  appRecord('d', { state: 'failed', wave: 'prod-eu', message: 'boom' }),
  ...manyApps(3, { state: 'held', wave: 'rest', message: 'wave rest waits for prod-eu' }),
  appRecord('f', { state: 'held', wave: 'rest', message: 'frozen: release freeze' }),
];

describe('the rollout message under release control', () => {
  it('gives each wave a line with its state and apps synced, and says why it halted', () => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps, { status: 'halted', waves })));
    expect(text).toContain(':octagonal_sign: *halted* at wave `prod-eu`: 1 failed (maxUnhealthy 0)');
    expect(text).toContain(':white_check_mark: *canary* done · 2/2 synced');
    expect(text).toContain(':octagonal_sign: *prod-eu* halted · 1/2 synced — 1 failed (maxUnhealthy 0)');
    expect(text).toContain(':pause_button: *rest* waiting · 0/4 synced');
  });

  it('counts the held apps by what holds them', () => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot(apps, { status: 'halted', waves })));
    expect(text).toContain(
      ':pause_button: 4 held: wave rest waits for prod-eu (3) · frozen: release freeze (1)',
    );
  });

  it('says who paused or aborted it, names the last action, and warns of ungated instances', () => {
    const by = 'arn:aws:sts::123456789012:assumed-role/ops/alice';
    const paused = textOf(
      renderRolloutMessage(
        rolloutSnapshot(apps, {
          status: 'paused',
          actions: [{ action: 'pause', by, at: '2026-12-01T10:02:00.000Z', detail: 'incident 42' }],
          ungated: [{ cluster: 'hub-eu', namespace: 'argocd', reason: 'polling on' }],
        }),
      ),
    );
    expect(paused).toContain(':double_vertical_bar: *paused* by ops/alice: incident 42');
    expect(paused).toContain('last action: pause by ops/alice at 10:02 UTC — incident 42');
    expect(paused).toContain(':warning: not gated: Argo CD on `hub-eu` (argocd) polls Git itself');
    const aborted = textOf(
      renderRolloutMessage(
        rolloutSnapshot([appRecord('x', { state: 'aborted' })], {
          status: 'aborted',
          actions: [{ action: 'abort', by: 'token', at: '2026-12-01T10:03:00.000Z' }],
        }),
      ),
    );
    expect(aborted).toContain(':heavy_multiplication_x: *aborted* by token');
  });

  it('stays within Slack limits with 60 waves, 5,000 apps and many ungated instances', () => {
    const many: WaveProgress[] = Array.from({ length: 60 }, (_, i) => ({
      name: `w${i}`,
      state: 'waiting',
      clusters: [],
      reason: 'r'.repeat(1000),
    }));
    const fleet = Array.from({ length: 5000 }, (_, i) =>
      appRecord(`app-${i}`, {
        state: i % 10 === 0 ? 'failed' : 'held',
        wave: `w${i % 60}`,
        destination: `d${i % 40}`,
        message: `hold ${i % 7}`,
      }),
    );
    const ungated = Array.from({ length: 30 }, (_, i) => ({
      cluster: `c${i}`,
      namespace: 'argocd',
      reason: 'x',
    }));
    const message = renderRolloutMessage(rolloutSnapshot(fleet, { status: 'halted', waves: many, ungated }));
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    for (const block of message.blocks) expect(blockText(block).length).toBeLessThanOrEqual(3000);
    const text = textOf(message);
    expect(text).toContain('and 50 more waves');
    expect(text).toContain(':pause_button: 4500 held: hold');
    expect(text).toContain('and 27 more');
  });

  it('adds nothing for a rollout without waves, holds or actions', () => {
    const text = textOf(renderRolloutMessage(rolloutSnapshot([appRecord('a', { state: 'synced' })])));
    expect(text).not.toContain('held');
    expect(text).not.toContain('not gated');
    expect(text).not.toContain('last action');
  });
});
