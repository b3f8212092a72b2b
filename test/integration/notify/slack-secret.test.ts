import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../../infra/local/secrets-manager.js';
import { type SlackReceiver, startSlackReceiver } from '../../../infra/local/slack-receiver.js';
import { createCachedSecretReader } from '../../../lib/aws/cached-secrets.js';
import { loadConfig } from '../../../lib/config.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { createSlackTarget, postToSlack } from '../../../lib/notify/slack-target.js';

const REGION = 'eu-west-1';
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:000000000000:secret:gitops-sync/test/slack`;
const message = { text: 'rollout 3f2a9c1 succeeded', blocks: [] };

let secrets: LocalSecretsManager;
let slack: SlackReceiver;

beforeAll(async () => {
  // The SDK wants credentials even for a local endpoint; the double does not check them.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  secrets = await startLocalSecretsManager({ region: REGION, accountId: '000000000000' });
  slack = await startSlackReceiver({ tokens: ['xoxb-rotated'] });
});

afterAll(async () => {
  await slack.close();
  await secrets.close();
  vi.unstubAllEnvs();
});

const target = (env: Record<string, string>, ttlSeconds = 300) => {
  const logger = createMemoryLogger();
  const config = loadConfig({ TABLE_NAME: 't', AWS_REGION: REGION, SLACK_SECRET_ARN: SECRET_ARN, ...env });
  const reader = createCachedSecretReader({ region: REGION, endpoint: secrets.endpoint, ttlSeconds });
  return { logger, target: createSlackTarget(config.slack, { logger, secrets: reader }) };
};

describe('the Slack credential read from Secrets Manager (SLACK_SECRET_ARN)', () => {
  it('posts with the bot token the secret holds, and picks up a rotated token after the TTL', async () => {
    secrets.put({ name: 'gitops-sync/test/slack', string: JSON.stringify({ botToken: 'xoxb-old' }) });
    const { target: bot } = target({ SLACK_CHANNEL: '#deploys', SLACK_API_URL: slack.apiUrl }, 1);
    expect(bot.mode).toBe('bot');
    // The double accepts only the rotated token: the old one is refused, so the token really is the secret's.
    await expect(postToSlack(bot, message)).rejects.toThrow();
    secrets.put({ name: 'gitops-sync/test/slack', string: JSON.stringify({ botToken: 'xoxb-rotated' }) });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await postToSlack(bot, message);
    expect(slack.messages('#deploys').map((m) => m.text)).toEqual([message.text]);
  });

  it('reads the cached value once per TTL, not once per message', async () => {
    secrets.put({ name: 'gitops-sync/test/slack', string: JSON.stringify({ botToken: 'xoxb-rotated' }) });
    const before = secrets.count('GetSecretValue');
    const { target: bot } = target({ SLACK_CHANNEL: '#deploys', SLACK_API_URL: slack.apiUrl });
    for (let i = 0; i < 3; i++) await postToSlack(bot, message);
    expect(secrets.count('GetSecretValue') - before).toBe(1);
  });

  it('uses the secret webhook URL when no channel is set', async () => {
    const url = slack.webhookUrl('/services/T000/B000/secretpath');
    secrets.put({ name: 'gitops-sync/test/slack', string: JSON.stringify({ webhookUrl: url }) });
    const { target: hook } = target({});
    expect(hook.mode).toBe('webhook');
    await postToSlack(hook, message);
    expect(slack.messages().some((m) => m.channel.startsWith('hook:'))).toBe(true);
  });

  it('names the missing field, never a value, when the secret lacks it', async () => {
    secrets.put({
      name: 'gitops-sync/test/slack',
      string: JSON.stringify({ webhookUrl: 'https://hooks.x/s3cr3t' }),
    });
    const { target: bot } = target({ SLACK_CHANNEL: '#deploys', SLACK_API_URL: slack.apiUrl });
    const error = await postToSlack(bot, message).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('"botToken"');
    expect(error?.message).not.toContain('s3cr3t');
  });
});
