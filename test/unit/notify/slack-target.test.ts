import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { SlackNoticeStore } from '../../../lib/notify/notice-store.js';
import { createRolloutNotifier, noticeChannelKey } from '../../../lib/notify/rollout-notifier.js';
import { createSlackTarget, postToSlack } from '../../../lib/notify/slack-target.js';
import { appRecord, rolloutSnapshot } from '../../helpers/slack.js';

const base = { TABLE_NAME: 't' };

describe('createSlackTarget', () => {
  it.each([
    [
      'a bot token and channel give bot mode, keyed by the channel',
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_CHANNEL: '#deploys' },
      'bot',
      '#deploys',
    ],
    [
      'an incoming webhook URL gives webhook mode',
      { SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x' },
      'webhook',
      'webhook',
    ],
    ['no Slack setting turns notices off', {}, 'off', undefined],
  ])('%s', (_name, env, mode, key) => {
    const target = createSlackTarget(loadConfig({ ...base, ...env }).slack, { logger: createMemoryLogger() });
    expect(target.mode).toBe(mode);
    expect(noticeChannelKey(target)).toBe(key);
  });
});

describe('createRolloutNotifier', () => {
  it('reports a notice state that cannot be read instead of throwing, and sends nothing', async () => {
    let sent = 0;
    const store = {
      get: () => Promise.reject(new Error('throttled')),
    } as unknown as SlackNoticeStore;
    const notifier = createRolloutNotifier({
      slack: {
        mode: 'webhook',
        webhook: {
          send: async () => {
            sent += 1;
          },
        },
      },
      store,
      logger: createMemoryLogger(),
    });
    const result = await notifier.notify(rolloutSnapshot([appRecord('web', { state: 'synced' })]));
    expect(result.errors).toEqual([
      { action: 'store', failure: 'store', message: 'slack notice state: throttled' },
    ]);
    expect(sent).toBe(0);
  });
});

describe('postToSlack', () => {
  it.each([
    ['bot mode posts to the configured channel', 'bot', [['post', '#deploys', 'digest']]],
    ['webhook mode sends through the webhook', 'webhook', [['send', 'digest']]],
    ['off sends nothing', 'off', []],
  ] as const)('%s', async (_name, mode, expected) => {
    const calls: unknown[][] = [];
    const api = {
      postMessage: async (input: { channel: string; text: string }) => {
        calls.push(['post', input.channel, input.text]);
        return { ts: '1.1', channel: 'C1' };
      },
      updateMessage: async () => ({ ts: '1.1', channel: 'C1' }),
    };
    const webhook = {
      send: async (message: { text: string }) => {
        calls.push(['send', message.text]);
      },
    };
    const target =
      mode === 'bot' ? { mode, api, channel: '#deploys' } : mode === 'webhook' ? { mode, webhook } : { mode };
    await postToSlack(target, { text: 'digest', blocks: [] });
    expect(calls).toEqual(expected);
  });
});
