import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import type { SlackNoticeStore } from '../../../lib/notify/notice-store.js';
import {
  createRolloutNotifier,
  type NotifierLimits,
  notifyRollout,
} from '../../../lib/notify/rollout-notifier.js';
import { createSlackApi } from '../../../lib/notify/slack-client.js';
import type { RolloutSnapshot } from '../../../lib/notify/types.js';
import { systemClock } from '../../../lib/ports.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { createSlackRefs } from '../../../lib/store/slack-refs.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { appRecord, manyApps, recordingSleep, rolloutSnapshot } from '../../helpers/slack.js';

const TOKEN = 'xoxb-4242-4242-notarealtoken';

describe('notifier, bot mode, real @slack/web-api against the local Slack double', () => {
  let receiver: SlackReceiver;
  let table: TestTable;
  let store: SlackNoticeStore;
  let counter = 0;

  beforeAll(async () => {
    receiver = await startSlackReceiver({ tokens: [TOKEN] });
    table = await startTestTable();
    store = createSlackRefs({ client: table.client, tableName: table.tableName, clock: systemClock });
  });
  afterEach(() => receiver.clearFaults());
  afterAll(async () => {
    await receiver.close();
    await table.close();
  });

  /** A fresh channel and commit per test, so tests never see each other's messages. */
  function setup(options: { apiUrl?: string; limits?: Partial<NotifierLimits> } = {}) {
    counter += 1;
    const channel = `#deploys-${counter}`;
    const sha = `${String(counter).padStart(8, '0')}${'c'.repeat(32)}`;
    const sleep = recordingSleep();
    const logger = createMemoryLogger();
    const api = createSlackApi({
      token: TOKEN,
      apiUrl: options.apiUrl ?? receiver.apiUrl,
      logger,
      retry: { sleep: sleep.sleep },
    });
    const deps = {
      slack: { mode: 'bot' as const, api, channel },
      store,
      logger,
      limits: options.limits ?? {},
    };
    const notifier = createRolloutNotifier(deps);
    const snapshot = (apps: readonly AppRecord[], overrides: Partial<RolloutSnapshot> = {}) =>
      rolloutSnapshot(apps, { sha, ...overrides });
    const messages = () => receiver.messages(channel);
    const root = () => {
      const [only, ...others] = messages();
      expect(others).toHaveLength(0);
      if (only === undefined) throw new Error('no message was posted');
      return only;
    };
    const callsSince = (mark: number) => receiver.calls().slice(mark);
    return { channel, sha, sleep, logger, deps, notifier, snapshot, messages, root, callsSince };
  }

  it('posts one message for a commit, then edits that message as the rollout moves on', async () => {
    const t = setup();
    const first = await t.notifier.notify(t.snapshot([appRecord('web'), appRecord('api')]));
    const second = await t.notifier.notify(
      t.snapshot([appRecord('web', { state: 'synced' }), appRecord('api')]),
    );
    await t.notifier.notify(
      t.snapshot([appRecord('web', { state: 'synced' }), appRecord('api', { state: 'synced' })]),
    );
    expect(first.sent).toEqual([{ action: 'post' }]);
    expect(second.sent).toEqual([{ action: 'update' }]);
    const message = t.root();
    expect(message.edits).toBe(2);
    expect(message.text).toContain(': succeeded');
  });

  it('sends no update when the rendered content has not changed', async () => {
    const t = setup();
    const apps = [appRecord('web', { state: 'syncing' })];
    await t.notifier.notify(t.snapshot(apps));
    const mark = receiver.calls().length;
    const again = await t.notifier.notify(t.snapshot(apps));
    expect(again).toEqual({ sent: [], skipped: [{ action: 'update', reason: 'unchanged' }], errors: [] });
    expect(t.callsSince(mark)).toEqual([]);
  });

  it('coalesces a poll that changed 200 apps into one update', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot(manyApps(200, { state: 'syncing' })));
    const mark = receiver.calls().length;
    await t.notifier.notify(t.snapshot(manyApps(200, { state: 'synced' })));
    expect(t.callsSince(mark).map((c) => c.method)).toEqual(['chat.update']);
    expect(t.root().text).toContain('200 synced');
  });

  it('replies once in the thread for each failed or blocked app', async () => {
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
    const failing = [
      appRecord('web', { state: 'failed', message: 'hook failed' }),
      blocked,
      appRecord('api'),
    ];
    await t.notifier.notify(t.snapshot(failing));
    await t.notifier.notify(t.snapshot([...failing.slice(0, 2), appRecord('api', { state: 'synced' })]));
    const later = await t.notifier.notify(
      t.snapshot([...failing.slice(0, 2), appRecord('api', { state: 'degraded', message: 'pod crashloop' })]),
    );
    const replies = receiver.replies(t.root().ts);
    expect(replies.map((r) => r.text)).toEqual([
      'hub-eu argocd/web failed',
      'hub-eu argocd/shop blocked',
      'hub-eu argocd/api degraded',
    ]);
    expect(JSON.stringify(replies[1]?.blocks)).toContain(
      'ExternalSecret `shop/db` key `prod/db` property `pw`',
    );
    expect(later.sent).toEqual([{ action: 'update' }, { action: 'reply', app: 'hub-eu/argocd/api' }]);
  });

  it('posts one message when several first notices race, and replies to each failure once', async () => {
    const t = setup();
    const snapshot = t.snapshot([
      appRecord('web', { state: 'failed' }),
      appRecord('api', { state: 'timeout' }),
    ]);
    const results = await Promise.all(Array.from({ length: 6 }, () => t.notifier.notify(snapshot)));
    expect(t.messages()).toHaveLength(1);
    expect(receiver.replies(t.root().ts)).toHaveLength(2);
    expect(results.flatMap((r) => r.sent).filter((s) => s.action === 'post')).toHaveLength(1);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
  });

  it('sends each reply once when several later notices race', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web'), appRecord('api')]));
    const failed = t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api', { state: 'error' })]);
    await Promise.all(Array.from({ length: 6 }, () => t.notifier.notify(failed)));
    expect(
      receiver
        .replies(t.root().ts)
        .map((r) => r.text)
        .sort(),
    ).toEqual(['hub-eu argocd/api error', 'hub-eu argocd/web failed']);
  });

  it('honours 429 Retry-After on an update and then sends it', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web')]));
    receiver.injectFault({ status: 429, retryAfterSeconds: 3, method: 'chat.update' });
    const result = await t.notifier.notify(t.snapshot([appRecord('web', { state: 'synced' })]));
    expect(result.sent).toEqual([{ action: 'update' }]);
    expect(t.sleep.waits).toEqual([3000]);
    expect(t.root().text).toContain('succeeded');
  });

  it('stops the notice when rate-limited past the budget, and sends it all on the next one', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web'), appRecord('api')]));
    receiver.injectFault({ status: 429, retryAfterSeconds: 120, method: 'chat.update' });
    const failed = t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api', { state: 'failed' })]);
    const mark = receiver.calls().length;
    const limited = await t.notifier.notify(failed);
    expect(limited.errors).toEqual([
      {
        action: 'update',
        failure: 'rate-limited',
        message: 'slack chat.update rate-limited: http 429, retry after 120 s',
      },
    ]);
    expect(t.callsSince(mark)).toHaveLength(1);
    const retried = await t.notifier.notify(failed);
    expect(retried.sent.map((s) => s.action)).toEqual(['update', 'reply', 'reply']);
    expect(receiver.replies(t.root().ts)).toHaveLength(2);
  });

  it('returns errors without throwing when Slack answers 5xx, and posts on the next notice', async () => {
    const t = setup();
    receiver.injectFault({ status: 500, times: 2, method: 'chat.postMessage' });
    const down = await t.notifier.notify(t.snapshot([appRecord('web')]));
    expect(down.errors).toEqual([
      { action: 'post', failure: 'unavailable', message: 'slack chat.postMessage unavailable: http 500' },
    ]);
    expect(t.messages()).toHaveLength(0);
    const up = await t.notifier.notify(t.snapshot([appRecord('web')]));
    expect(up.sent).toEqual([{ action: 'post' }]);
    expect(t.messages()).toHaveLength(1);
  });

  it('retries a thread reply that failed on the next notice', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web')]));
    receiver.injectFault({ status: 503, times: 2, method: 'chat.postMessage' });
    const failed = t.snapshot([appRecord('web', { state: 'failed' })]);
    const first = await t.notifier.notify(failed);
    expect(first.sent).toEqual([{ action: 'update' }]);
    expect(first.errors.map((e) => [e.action, e.failure, e.app])).toEqual([
      ['reply', 'unavailable', 'hub-eu/argocd/web'],
    ]);
    const second = await t.notifier.notify(failed);
    expect(second.sent).toEqual([{ action: 'reply', app: 'hub-eu/argocd/web' }]);
    expect(receiver.replies(t.root().ts)).toHaveLength(1);
  });

  it('returns errors without throwing when Slack cannot be reached, and logs no token', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const t = setup({ apiUrl: `http://127.0.0.1:${port}/api/` });
    const result = await t.notifier.notify(t.snapshot([appRecord('web', { state: 'failed' })]));
    expect(result.errors.map((e) => [e.action, e.failure])).toEqual([['post', 'unavailable']]);
    expect(JSON.stringify(t.logger.lines)).not.toContain(TOKEN);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('posts the message again when someone deleted it, and edits the new one from then on', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web')]));
    receiver.deleteMessage(t.root().ts);
    const reposted = await t.notifier.notify(t.snapshot([appRecord('web', { state: 'synced' })]));
    expect(reposted).toMatchObject({ sent: [{ action: 'post' }], errors: [] });
    await t.notifier.notify(
      t.snapshot([appRecord('web', { state: 'synced' })], { commitTitle: 'Other title' }),
    );
    expect(t.root()).toMatchObject({ edits: 1 });
    expect(t.root().text).toContain('succeeded');
  });

  it('never lets an older snapshot overwrite a newer one', async () => {
    const t = setup();
    await t.notifier.notify(t.snapshot([appRecord('web', { state: 'synced' })]));
    const older = await t.notifier.notify(t.snapshot([appRecord('web', { state: 'refreshed' })]));
    expect(older.skipped).toEqual([{ action: 'update', reason: 'stale-snapshot' }]);
    expect(t.root()).toMatchObject({ edits: 0 });
  });

  it('bounds a mass failure to a few replies, the rest named in one overflow reply', async () => {
    const t = setup({ limits: { maxNoticesPerCall: 5 } });
    const apps = manyApps(30, { state: 'failed' });
    const first = await t.notifier.notify(t.snapshot(apps));
    const again = await t.notifier.notify(t.snapshot(apps, { commitTitle: 'changed' }));
    const replies = receiver.replies(t.root().ts);
    expect(replies).toHaveLength(5);
    expect(replies.at(-1)?.text).toBe('26 more apps failed or were blocked');
    expect(first.sent.at(-1)).toEqual({ action: 'reply', apps: 26 });
    expect(again.sent).toEqual([{ action: 'update' }]);
  });

  it('leaves what does not fit in its time to the next notice', async () => {
    const t = setup();
    let time = Date.now();
    // every reading is 30 s later than the last, past the 20 s a notice may take
    const slowClock = {
      now: () => {
        time += 30_000;
        return new Date(time);
      },
    };
    const failed = t.snapshot([appRecord('web', { state: 'failed' }), appRecord('api', { state: 'failed' })]);
    const first = await notifyRollout(failed, undefined, { ...t.deps, clock: slowClock });
    expect(first.sent).toEqual([{ action: 'post' }]);
    expect(first.skipped).toEqual([{ action: 'reply', reason: 'deferred' }]);
    const next = await t.notifier.notify(failed);
    expect(next.sent.map((s) => s.action)).toEqual(['reply', 'reply']);
    expect(receiver.replies(t.root().ts)).toHaveLength(2);
  });

  it('reports a notice state outage as an error instead of throwing', async () => {
    const t = setup();
    const broken: SlackNoticeStore = { ...store, claim: () => Promise.reject(new Error('dynamodb down')) };
    const result = await notifyRollout(t.snapshot([appRecord('web')]), undefined, {
      ...t.deps,
      store: broken,
    });
    expect(result.errors).toEqual([
      { action: 'store', failure: 'store', message: 'slack notice state: dynamodb down' },
    ]);
    expect(t.messages()).toHaveLength(0);
  });

  it('sends nothing when Slack is off', async () => {
    const t = setup();
    const result = await notifyRollout(t.snapshot([appRecord('web')]), undefined, {
      ...t.deps,
      slack: { mode: 'off' },
    });
    expect(result).toEqual({ sent: [], skipped: [{ action: 'post', reason: 'slack-off' }], errors: [] });
  });

  it('routes a repository with its own slackChannel there, with its own stored message', async () => {
    const t = setup();
    const teamChannel = `#team-a-${counter}`;
    const notifier = createRolloutNotifier({
      ...t.deps,
      fleet: {
        clusters: [{ name: 'hub-eu', argocdUrl: 'https://argocd.example' }],
        repositories: [{ url: 'https://github.com/org/team-a.git', slackChannel: teamChannel }],
      },
    });
    const teamRepo = { fullName: 'org/team-a', webUrl: 'https://github.com/org/team-a' };
    await notifier.notify(t.snapshot([appRecord('web')], { repo: teamRepo }));
    await notifier.notify(t.snapshot([appRecord('web', { state: 'failed' })], { repo: teamRepo }));
    const [root, ...others] = receiver.messages(teamChannel);
    expect(others).toHaveLength(0);
    expect(t.messages()).toHaveLength(0);
    expect(JSON.stringify(root?.blocks)).toContain(
      '<https://argocd.example/applications/argocd/web|argocd/web>',
    );
    expect(await store.get(t.sha, teamChannel)).toMatchObject({ ts: root?.ts });
    expect(await store.get(t.sha, t.channel)).toBeUndefined();
    // Another repository of the same fleet still goes to SLACK_CHANNEL.
    await notifier.notify(t.snapshot([appRecord('api')]));
    expect(t.messages()).toHaveLength(1);
  });

  it('keeps a worst-case operator message within what Slack accepts', async () => {
    const t = setup();
    const failure = {
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
      status: 'SyncFailed',
      message: `admission webhook "x" denied the request: ${'<&> '.repeat(200)}`,
    };
    const apps = Array.from({ length: 600 }, (_, i) =>
      appRecord(`app-${i}-${'n'.repeat(40)}`, {
        state: i % 3 === 0 ? 'failed' : 'syncing',
        destination: `spoke-${i % 40}`,
        failures: Array.from({ length: 10 }, () => failure),
        message: 'one or more synchronization tasks completed unsuccessfully',
      }),
    );
    const notifier = createRolloutNotifier({
      ...t.deps,
      fleet: { clusters: [{ name: 'hub-eu', argocdUrl: 'https://argocd.example' }], repositories: [] },
    });
    const snapshot = t.snapshot(apps, {
      refs: ['refs/heads/main', ...Array.from({ length: 30 }, (_, i) => `refs/tags/v1.${i}.0`)],
      receivedAt: '2026-11-30T10:00:00.000Z',
      deadline: '2026-11-30T10:10:00.000Z',
    });
    const result = await notifier.notify(snapshot);
    expect(result.errors).toEqual([]);
    expect(result.sent.map((s) => s.action)).toContain('post');
    expect(t.root().blocks.length).toBeLessThanOrEqual(50);
  });

  it('names a tag pushed later on the same commit in the message and in one thread reply', async () => {
    const t = setup();
    const synced = [appRecord('web', { state: 'synced' })];
    await t.notifier.notify(t.snapshot(synced, { refs: ['refs/heads/main'] }));
    const tagged = t.snapshot(synced, { refs: ['refs/heads/main', 'refs/tags/v1.4.2'] });
    const result = await t.notifier.notify(tagged);
    expect(result.sent.map((s) => s.action)).toEqual(['update', 'reply']);
    const root = t.root();
    expect(JSON.stringify(root.blocks)).toContain('on `main` · tag `v1.4.2`');
    const replies = receiver.replies(root.ts);
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(replies[0]?.blocks)).toContain(':label: tag `v1.4.2` now points at this commit');
    const again = await t.notifier.notify(tagged);
    expect(again.sent).toEqual([]);
    expect(receiver.replies(root.ts)).toHaveLength(1);
  });
});
