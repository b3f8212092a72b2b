import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { SlackNoticeStore } from '../../../lib/notify/notice-store.js';
import { createRolloutNotifier } from '../../../lib/notify/rollout-notifier.js';
import { createSlackWebhook } from '../../../lib/notify/slack-webhook.js';
import type { RolloutSnapshot } from '../../../lib/notify/types.js';
import { systemClock } from '../../../lib/ports.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { createSlackRefs } from '../../../lib/store/slack-refs.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { appRecord, manyApps, recordingSleep, rolloutSnapshot } from '../../helpers/slack.js';

describe('notifier, webhook mode, real @slack/webhook against the local Slack double', () => {
  let receiver: SlackReceiver;
  let table: TestTable;
  let store: SlackNoticeStore;
  let counter = 0;

  beforeAll(async () => {
    receiver = await startSlackReceiver();
    table = await startTestTable();
    store = createSlackRefs({ client: table.client, tableName: table.tableName, clock: systemClock });
  });
  afterEach(() => receiver.clearFaults());
  afterAll(async () => {
    await receiver.close();
    await table.close();
  });

  /** A fresh webhook path and commit per test. */
  function setup(maxNoticesPerCall = 10) {
    counter += 1;
    const path = `T0/B${counter}/secretpart${counter}`;
    const sha = `${String(counter).padStart(8, '0')}${'d'.repeat(32)}`;
    const sleep = recordingSleep();
    const logger = createMemoryLogger();
    const webhook = createSlackWebhook({ url: receiver.webhookUrl(path), retry: { sleep: sleep.sleep } });
    const notifier = createRolloutNotifier({
      slack: { mode: 'webhook', webhook },
      store,
      logger,
      limits: { maxNoticesPerCall },
    });
    const snapshot = (apps: readonly AppRecord[], overrides: Partial<RolloutSnapshot> = {}) =>
      rolloutSnapshot(apps, { sha, ...overrides });
    const texts = () => receiver.messages(`hook:${path}`).map((m) => m.text);
    return { path, sha, sleep, logger, notifier, snapshot, texts };
  }

  it('sends one message at once for each failure, and one when the rollout ends', async () => {
    const t = setup();
    const moving = await t.notifier.notify(t.snapshot([appRecord('web'), appRecord('api')]));
    await t.notifier.notify(t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api')]));
    await t.notifier.notify(t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api')]));
    const ended = await t.notifier.notify(
      t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api', { state: 'synced' })]),
    );
    const after = await t.notifier.notify(
      t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api', { state: 'synced' })]),
    );
    expect(moving).toEqual({
      sent: [],
      skipped: [{ action: 'final-message', reason: 'not-ended' }],
      errors: [],
    });
    const short = t.sha.slice(0, 7);
    expect(t.texts()).toEqual([
      `org/gitops ${short}: hub-eu argocd/web failed`,
      `org/gitops ${short} (main) by Jane Doe: partial — 1 synced, 1 failed`,
    ]);
    expect(ended.sent).toEqual([{ action: 'final-message' }]);
    expect(after.skipped).toEqual([{ action: 'final-message', reason: 'already-sent' }]);
  });

  it('tells a halt once (a halted rollout is not over: no end message would say so)', async () => {
    const t = setup();
    const waves = [
      { name: 'canary', state: 'halted' as const, clusters: ['hub-eu'], reason: '1 failed of 2 apps' },
      { name: 'rest', state: 'waiting' as const, clusters: ['prod'] },
    ];
    const apps = [appRecord('web', { state: 'failed' }), appRecord('api', { state: 'held' })];
    const first = await t.notifier.notify(t.snapshot(apps, { status: 'halted', waves }));
    const again = await t.notifier.notify(t.snapshot(apps, { status: 'halted', waves }));
    expect(first.sent).toEqual([
      { action: 'failure-message', app: 'hub-eu/argocd/web' },
      { action: 'final-message' },
    ]);
    expect(again.sent).toEqual([]);
    const texts = t.texts();
    expect(texts).toHaveLength(2);
    expect(texts[1]).toContain('halted');
  });

  it('leaves failures first seen as the rollout ends to the end message, which names them', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web'), appRecord('api')]));
    const result = await t.notifier.notify(
      t.snapshot([appRecord('web', { state: 'timeout' }), appRecord('api', { state: 'synced' })]),
    );
    expect(result.sent).toEqual([{ action: 'final-message' }]);
    const [only, ...rest] = receiver.messages(`hook:${t.path}`);
    expect(rest).toEqual([]);
    expect(JSON.stringify(only?.blocks)).toContain('*timeout* · `hub-eu` argocd/web');
  });

  it('still sends a failure seen after the end message went out', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web', { state: 'synced' })]));
    const later = await t.notifier.notify(t.snapshot([appRecord('web', { state: 'degraded' })]));
    expect(later.sent).toEqual([{ action: 'failure-message', app: 'hub-eu/argocd/web' }]);
    expect(t.texts()).toHaveLength(2);
  });

  it('sends a blocked app its own message naming the ExternalSecret, key and property', async () => {
    const t = setup();
    const blocked = appRecord('shop', {
      state: 'blocked',
      secrets: [
        {
          externalSecret: 'shop/db',
          field: 'spec.data[0]',
          key: 'prod/db',
          property: 'pw',
          outcome: 'missing-property',
        },
      ],
    });
    await t.notifier.notify(t.snapshot([blocked, appRecord('web')]));
    const [message] = receiver.messages(`hook:${t.path}`);
    expect(JSON.stringify(message?.blocks)).toContain('ExternalSecret `shop/db` key `prod/db` property `pw`');
  });

  it('sends each message once when several notices race', async () => {
    const t = setup();
    const failed = t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api')]);
    await Promise.all(Array.from({ length: 6 }, () => t.notifier.notify(failed)));
    const ended = t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api', { state: 'synced' })]);
    await Promise.all(Array.from({ length: 6 }, () => t.notifier.notify(ended)));
    expect(t.texts()).toHaveLength(2);
  });

  it('bounds a mass failure to a few messages', async () => {
    const t = setup(3);
    await t.notifier.notify(t.snapshot([...manyApps(20, { state: 'failed' }), appRecord('late')]));
    expect(t.texts()).toHaveLength(3);
    expect(t.texts().at(-1)).toContain('18 more apps failed or were blocked');
  });

  it('honours 429 Retry-After', async () => {
    const t = setup();
    receiver.injectFault({ status: 429, retryAfterSeconds: 2, method: 'webhook' });
    const result = await t.notifier.notify(t.snapshot([appRecord('web', { state: 'synced' })]));
    expect(result.sent).toEqual([{ action: 'final-message' }]);
    expect(t.sleep.waits).toEqual([2000]);
  });

  it('returns errors without throwing when Slack is down, and sends what was missed next time', async () => {
    const t = setup();
    receiver.injectFault({ status: 500, times: 2, method: 'webhook' });
    const ended = t.snapshot([appRecord('web', { state: 'error' }), appRecord('api', { state: 'synced' })]);
    const down = await t.notifier.notify(ended);
    expect(down.errors).toEqual([
      {
        action: 'final-message',
        failure: 'unavailable',
        message: 'slack incoming webhook unavailable: internal_error, http 500',
      },
    ]);
    expect(JSON.stringify(t.logger.lines)).not.toContain('secretpart');
    const up = await t.notifier.notify(ended);
    expect(up.sent).toEqual([{ action: 'final-message' }]);
    expect(t.texts()).toHaveLength(1);
  });
});
