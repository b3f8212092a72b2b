import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';

const TOKEN = 'xoxb-1-2-receiver';

describe('the local Slack double', () => {
  let receiver: SlackReceiver;
  const printed: string[] = [];
  beforeAll(async () => {
    receiver = await startSlackReceiver({ print: (line) => printed.push(line) });
  });
  afterAll(async () => {
    await receiver.close();
  });

  const call = async (method: string, body: Record<string, unknown>, auth: string | null = TOKEN) => {
    const response = await fetch(`${receiver.apiUrl}${method}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(auth === null ? {} : { authorization: `Bearer ${auth}` }),
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers chat.postMessage with ok, ts and the channel id, for a JSON body', async () => {
    const answer = await call('chat.postMessage', { channel: '#json', text: 'hi' });
    expect(answer).toMatchObject({ status: 200, body: { ok: true, channel: receiver.channelId('json') } });
  });

  it('accepts a form body with the token in it, as older clients send', async () => {
    const response = await fetch(`${receiver.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, channel: '#form', text: 'hi', blocks: '[]' }).toString(),
    });
    expect(await response.json()).toMatchObject({ ok: true });
  });

  it.each([
    ['no token', { channel: '#x', text: 'hi' }, null, 'not_authed'],
    ['a token that is not a bot token', { channel: '#x', text: 'hi' }, 'xoxp-user', 'invalid_auth'],
    ['no text and no blocks', { channel: '#x' }, TOKEN, 'no_text'],
    [
      'more than 50 blocks',
      { channel: '#x', blocks: Array(51).fill({ type: 'divider' }) },
      TOKEN,
      'invalid_blocks',
    ],
    [
      'a reply to a thread that does not exist',
      { channel: '#x', text: 'hi', thread_ts: '1.2' },
      TOKEN,
      'thread_not_found',
    ],
  ])('answers a Slack-shaped error for %s', async (_name, body, auth, error) => {
    expect(await call('chat.postMessage', body, auth)).toEqual({ status: 200, body: { ok: false, error } });
  });

  it('updates by channel id only, as Slack does', async () => {
    const posted = await call('chat.postMessage', { channel: '#ids', text: 'one' });
    const byName = await call('chat.update', { channel: '#ids', ts: posted.body.ts, text: 'two' });
    const byId = await call('chat.update', { channel: posted.body.channel, ts: posted.body.ts, text: 'two' });
    expect(byName.body).toEqual({ ok: false, error: 'channel_not_found' });
    expect(byId.body).toMatchObject({ ok: true, ts: posted.body.ts });
    expect(receiver.messages('#ids')).toMatchObject([{ text: 'two', edits: 1 }]);
  });

  it('takes an incoming webhook as JSON or as a payload form field, answering ok', async () => {
    const url = receiver.webhookUrl('T1/B1/x');
    const json = await fetch(url, { method: 'POST', body: JSON.stringify({ text: 'a' }) });
    const form = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ payload: JSON.stringify({ text: 'b' }) }).toString(),
    });
    expect([await json.text(), await form.text()]).toEqual(['ok', 'ok']);
    expect(receiver.messages('hook:T1/B1/x').map((m) => m.text)).toEqual(['a', 'b']);
  });

  it('answers an injected 429 with Retry-After, then serves normally', async () => {
    receiver.injectFault({ status: 429, retryAfterSeconds: 7 });
    const limited = await fetch(`${receiver.apiUrl}chat.postMessage`, { method: 'POST', body: '{}' });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    expect((await call('chat.postMessage', { channel: '#after', text: 'hi' })).body.ok).toBe(true);
  });

  it('prints a compact rendering of each message when asked', async () => {
    await call('chat.postMessage', {
      channel: '#print',
      text: 'fallback',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '<https://x.example|org/repo> &amp; more' } },
      ],
    });
    expect(printed.at(-1)).toMatch(/^\[slack\] C\d+ posted \d+\.\d+: org\/repo & more$/);
  });
});
