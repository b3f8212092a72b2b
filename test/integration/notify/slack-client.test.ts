import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createSlackApi } from '../../../lib/notify/slack-client.js';
import { SlackDeliveryError } from '../../../lib/notify/slack-errors.js';
import { createSlackWebhook } from '../../../lib/notify/slack-webhook.js';
import { recordingSleep } from '../../helpers/slack.js';

const TOKEN = 'xoxb-111-222-topsecrettoken';
const message = {
  text: 'hello',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hello*' } }],
} as const;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(promise: Promise<unknown>): Promise<SlackDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SlackDeliveryError);
  return error as SlackDeliveryError;
}

describe('Slack adapters against the local Slack double', () => {
  let receiver: SlackReceiver;
  beforeAll(async () => {
    receiver = await startSlackReceiver({ tokens: [TOKEN], channels: ['deploys'] });
  });
  afterAll(async () => {
    await receiver.close();
  });

  const api = (sleep = recordingSleep(), token = TOKEN) =>
    createSlackApi({
      token,
      apiUrl: receiver.apiUrl,
      logger: createMemoryLogger(),
      retry: { sleep: sleep.sleep },
    });

  describe('Web API (bot token)', () => {
    it('posts a message and answers with its ts and the channel id', async () => {
      const posted = await api().postMessage({ channel: '#deploys', ...message });
      expect(posted.channel).toBe(receiver.channelId('deploys'));
      expect(receiver.messages('deploys').find((m) => m.ts === posted.ts)).toMatchObject({
        text: 'hello',
        blocks: message.blocks,
      });
    });

    it('updates a message in place and posts thread replies under it', async () => {
      const client = api();
      const posted = await client.postMessage({ channel: '#deploys', ...message });
      await client.updateMessage({ channel: posted.channel, ts: posted.ts, text: 'changed', blocks: [] });
      await client.postMessage({ channel: posted.channel, threadTs: posted.ts, ...message });
      expect(receiver.messages('deploys').find((m) => m.ts === posted.ts)).toMatchObject({
        text: 'changed',
        edits: 1,
      });
      expect(receiver.replies(posted.ts)).toHaveLength(1);
    });

    it('honours 429 Retry-After and then succeeds', async () => {
      const sleep = recordingSleep();
      receiver.injectFault({ status: 429, retryAfterSeconds: 2, method: 'chat.postMessage' });
      await api(sleep).postMessage({ channel: '#deploys', ...message });
      expect(sleep.waits).toEqual([2000]);
    });

    it('reports rate-limited when Retry-After is beyond the budget, without waiting', async () => {
      const sleep = recordingSleep();
      receiver.injectFault({ status: 429, retryAfterSeconds: 45, method: 'chat.postMessage' });
      const error = await failure(api(sleep).postMessage({ channel: '#deploys', ...message }));
      expect(error).toMatchObject({ failure: 'rate-limited', retryAfterSeconds: 45 });
      expect(sleep.waits).toEqual([]);
    });

    it('reports unavailable after a bounded number of 5xx answers', async () => {
      const before = receiver.calls().length;
      receiver.injectFault({ status: 503, times: 5, method: 'chat.postMessage' });
      const error = await failure(api().postMessage({ channel: '#deploys', ...message }));
      expect(error.failure).toBe('unavailable');
      expect(receiver.calls().length - before).toBe(2);
      receiver.clearFaults();
    });

    it.each([
      ['a wrong token', 'xoxb-999-wrong', '#deploys', 'invalid_auth'],
      ['an unknown channel', TOKEN, '#nowhere', 'channel_not_found'],
    ])(
      'reports rejected for %s, naming neither the token nor anything secret',
      async (_n, token, channel, code) => {
        const error = await failure(api(recordingSleep(), token).postMessage({ channel, ...message }));
        expect(error).toMatchObject({ failure: 'rejected', slackError: code });
        expect(error.message).toBe(`slack chat.postMessage rejected: ${code}`);
        expect(JSON.stringify({ ...error, message: error.message })).not.toContain(token);
      },
    );

    it('reports message_not_found when the message to update is gone', async () => {
      const client = api();
      const posted = await client.postMessage({ channel: '#deploys', ...message });
      receiver.deleteMessage(posted.ts);
      const error = await failure(
        client.updateMessage({ channel: posted.channel, ts: posted.ts, ...message }),
      );
      expect(error).toMatchObject({ failure: 'rejected', slackError: 'message_not_found' });
    });

    it('reports unavailable when Slack cannot be reached', async () => {
      const port = await closedPort();
      const client = createSlackApi({
        token: TOKEN,
        apiUrl: `http://127.0.0.1:${port}/api/`,
        logger: createMemoryLogger(),
        retry: { sleep: recordingSleep().sleep },
      });
      const error = await failure(client.postMessage({ channel: '#deploys', ...message }));
      expect(error.failure).toBe('unavailable');
      expect(error.message).not.toContain(TOKEN);
    });
  });

  describe('incoming webhook', () => {
    const hookPath = 'T0001/B0002/s3cr3tp4th';
    const hook = (sleep = recordingSleep()) =>
      createSlackWebhook({ url: receiver.webhookUrl(hookPath), retry: { sleep: sleep.sleep } });

    it('sends a message to the webhook', async () => {
      await hook().send(message);
      expect(receiver.messages(`hook:${hookPath}`).at(-1)).toMatchObject({
        text: 'hello',
        blocks: message.blocks,
      });
    });

    it('honours 429 Retry-After and then succeeds', async () => {
      const sleep = recordingSleep();
      receiver.injectFault({ status: 429, retryAfterSeconds: 1, method: 'webhook' });
      await hook(sleep).send(message);
      expect(sleep.waits).toEqual([1000]);
    });

    it('reports rate-limited past the budget and unavailable on 5xx, never with the webhook URL', async () => {
      receiver.injectFault({ status: 429, retryAfterSeconds: 60, method: 'webhook' });
      const limited = await failure(hook().send(message));
      receiver.injectFault({ status: 500, times: 2, method: 'webhook' });
      const down = await failure(hook().send(message));
      expect([limited.failure, down.failure]).toEqual(['rate-limited', 'unavailable']);
      for (const error of [limited, down]) {
        expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('s3cr3tp4th');
      }
    });

    it('reports unavailable when the webhook cannot be reached, without its URL', async () => {
      const port = await closedPort();
      const url = `http://127.0.0.1:${port}/hooks/${hookPath}`;
      const error = await failure(
        createSlackWebhook({ url, retry: { sleep: recordingSleep().sleep } }).send(message),
      );
      expect(error.failure).toBe('unavailable');
      expect(`${error.message} ${String(error.cause)}`).not.toContain('s3cr3tp4th');
    });
  });
});
