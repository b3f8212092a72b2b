import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { compactText } from '../../../lib/notify/compact-text.js';
import { createRolloutNotifier } from '../../../lib/notify/rollout-notifier.js';
import { createSlackApi } from '../../../lib/notify/slack-client.js';
import { systemClock } from '../../../lib/ports.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { createSlackRefs } from '../../../lib/store/slack-refs.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';
import { appRecord, rolloutSnapshot, SHA } from '../../helpers/slack.js';

const TOKEN = 'xoxb-7777-7777-notarealtoken';
const PAGE = 'http://127.0.0.1:3000';
let receiver: SlackReceiver;
let table: TestTable;

beforeAll(async () => {
  receiver = await startSlackReceiver({ tokens: [TOKEN] });
  table = await startTestTable();
});

afterAll(async () => {
  await receiver.close();
  await table.close();
});

const missingDb = (name: string): AppRecord =>
  appRecord(name, {
    state: 'blocked',
    destination: `spoke-${name}`,
    secrets: [
      {
        externalSecret: `${name}/db`,
        field: 'spec.data[0]',
        key: 'gitops-sync/dev/db',
        property: 'password',
        outcome: 'missing-secret',
        message: 'secret gitops-sync/dev/db does not exist',
      },
    ],
  });

const denied = (cluster: string): AppRecord =>
  appRecord('web', {
    cluster,
    state: 'failed',
    message: 'one or more synchronization tasks completed unsuccessfully',
    failures: [
      {
        kind: 'Deployment',
        namespace: 'web',
        name: 'web',
        status: 'SyncFailed',
        message: 'admission webhook "policy.example.com" denied the request: image must be signed',
      },
    ],
  });

describe('thread replies, one per cause', () => {
  it('names a cause shared by many apps once, with what to do next, and links the rollout page', async () => {
    const channel = '#deploys-causes';
    const notifier = createRolloutNotifier({
      slack: {
        mode: 'bot',
        api: createSlackApi({ token: TOKEN, apiUrl: receiver.apiUrl, logger: createMemoryLogger() }),
        channel,
      },
      store: createSlackRefs({ client: table.client, tableName: table.tableName, clock: systemClock }),
      logger: createMemoryLogger(),
      pageUrl: (sha) => `${PAGE}/ui/rollouts/${sha}`,
    });
    const blocked = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(missingDb);
    const apps = [
      ...blocked,
      denied('prod-eu'),
      denied('prod-us'),
      appRecord('worker', { state: 'timeout' }),
      appRecord('api', { state: 'synced' }),
    ];
    const result = await notifier.notify(rolloutSnapshot(apps));
    const [root, ...others] = receiver.messages(channel);
    expect(others).toHaveLength(0);
    expect(JSON.stringify(root?.blocks)).toContain(`<${PAGE}/ui/rollouts/${SHA}|rollout page>`);

    const replies = receiver.replies(root?.ts ?? '').map((r) => compactText(r).join('\n'));
    // 7 blocked by one secret, 2 failed for one reason, 1 timeout alone: 3 replies, not 10.
    expect(replies).toHaveLength(3);
    expect(result.sent.filter((s) => s.action === 'reply')).toHaveLength(3);
    // In listing order: failed, then timeout, then blocked.
    const [failed, alone, secret] = replies;
    expect(secret).toContain(
      ':no_entry: *1 missing secret `gitops-sync/dev/db` (property `password`)* blocks 7 apps:',
    );
    expect(secret?.match(/gitops-sync\/dev\/db/g)).toHaveLength(2); // the cause, and what to do: once each
    for (const name of ['a', 'g']) expect(secret).toContain(`argocd/${name} → \`spoke-${name}\``);
    expect(secret).toContain(
      `What to do: create \`gitops-sync/dev/db\` in its store, then \`gitops-sync retry ${SHA.slice(0, 12)}\``,
    );
    expect(failed).toContain(":x: *2 apps failed*, Argo CD's one reason:");
    expect(failed?.match(/image must be signed/g)).toHaveLength(1);
    expect(failed).toContain('`prod-eu` argocd/web');
    expect(failed).toContain('`prod-us` argocd/web');
    expect(failed).toContain(`rollout page`);
    // An app with no reason given is never grouped with another: its own notice, and the next step.
    expect(alone).toContain(':alarm_clock: *timeout* · `hub-eu` argocd/worker');
    expect(alone).toContain('What to do: see why the app did not finish in Argo CD');

    // Each app is answered once: the next notice sends no reply again.
    const again = await notifier.notify(rolloutSnapshot(apps, { commitTitle: 'same apps' }));
    expect(again.sent.filter((s) => s.action === 'reply')).toHaveLength(0);
    expect(receiver.replies(root?.ts ?? '')).toHaveLength(3);
  });
});
