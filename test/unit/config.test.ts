import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { ConfigError } from '../../lib/errors.js';

const base = { TABLE_NAME: 'orchestrator' };

describe('loadConfig', () => {
  it('applies the defaults of the spec', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      tableName: 'orchestrator',
      trackDeadlineSeconds: 600,
      freezeCacheSeconds: 10,
      trackIntervalSeconds: 5,
      trackMaxIntervalSeconds: 30,
      reconcileIntervalSeconds: 300,
      port: 3000,
      maxBodyBytes: 10 * 1024 * 1024,
      refreshConcurrency: 10,
      awsRequestTimeoutMs: 5000,
      slack: { mode: 'off' },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    { name: 'a missing TABLE_NAME', env: {}, setting: 'TABLE_NAME' },
    {
      name: 'a deadline that is not a number',
      env: { ...base, TRACK_DEADLINE_SECONDS: 'ten' },
      setting: 'TRACK_DEADLINE_SECONDS',
    },
    {
      name: 'a deadline out of range',
      env: { ...base, TRACK_DEADLINE_SECONDS: '5' },
      setting: 'TRACK_DEADLINE_SECONDS',
    },
    { name: 'a port out of range', env: { ...base, PORT: '70000' }, setting: 'PORT' },
    {
      name: 'an SQS endpoint that is not a URL',
      env: { ...base, SQS_ENDPOINT: 'sqs:9324' },
      setting: 'SQS_ENDPOINT',
    },
    {
      name: 'an AWS request timeout out of range',
      env: { ...base, AWS_REQUEST_TIMEOUT_MS: '10' },
      setting: 'AWS_REQUEST_TIMEOUT_MS',
    },
    {
      name: 'an endpoint that is not a URL',
      env: { ...base, DYNAMODB_ENDPOINT: 'localhost:8000' },
      setting: 'DYNAMODB_ENDPOINT',
    },
    {
      name: 'a webhook secret that is not an ARN',
      env: { ...base, WEBHOOK_SECRET_ARN: 'my-secret' },
      setting: 'WEBHOOK_SECRET_ARN',
    },
    {
      name: 'a bot token without a channel',
      env: { ...base, SLACK_BOT_TOKEN: 'xoxb-1' },
      setting: 'SLACK_CHANNEL',
    },
    {
      name: 'a channel without a bot token',
      env: { ...base, SLACK_CHANNEL: '#deploys' },
      setting: 'SLACK_BOT_TOKEN',
    },
    {
      name: 'both Slack modes at once',
      env: {
        ...base,
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_CHANNEL: '#d',
        SLACK_WEBHOOK_URL: 'https://hooks.slack.com/x',
      },
      setting: 'SLACK_WEBHOOK_URL',
    },
    {
      name: 'a fanout queue without a track queue',
      env: { ...base, QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/q' },
      setting: 'TRACK_QUEUE_URL',
    },
    {
      name: 'an empty entry in a secret list',
      env: { ...base, GITHUB_WEBHOOK_SECRET: 'a,,b' },
      setting: 'GITHUB_WEBHOOK_SECRET',
    },
    { name: 'an unknown log level', env: { ...base, LOG_LEVEL: 'chatty' }, setting: 'LOG_LEVEL' },
  ])('stops on $name with one line naming the setting', ({ env, setting }) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).setting).toBe(setting);
    expect((error as Error).message.startsWith(`${setting}: `)).toBe(true);
    expect((error as Error).message).not.toContain('\n');
  });

  it('reads PUBLIC_URL without its trailing slash and refuses one that is not a URL', () => {
    expect(loadConfig({ TABLE_NAME: 't', PUBLIC_URL: 'https://sync.example/' }).publicUrl).toBe(
      'https://sync.example',
    );
    expect(() => loadConfig({ TABLE_NAME: 't', PUBLIC_URL: 'sync.example' })).toThrow(/PUBLIC_URL/);
  });

  it('reads PREFLIGHT_ASSUMABLE_ROLES as a list of role ARN patterns and refuses anything else', () => {
    const roles = 'arn:aws:iam::111122223333:role/gitops-sync-prod-access-*, arn:aws:iam::*:role/eso-*';
    expect(loadConfig({ TABLE_NAME: 't', PREFLIGHT_ASSUMABLE_ROLES: roles }).preflightAssumableRoles).toEqual(
      ['arn:aws:iam::111122223333:role/gitops-sync-prod-access-*', 'arn:aws:iam::*:role/eso-*'],
    );
    expect(loadConfig({ TABLE_NAME: 't' }).preflightAssumableRoles).toBeUndefined();
    expect(() => loadConfig({ TABLE_NAME: 't', PREFLIGHT_ASSUMABLE_ROLES: 'eso-*' })).toThrow(
      /PREFLIGHT_ASSUMABLE_ROLES: eso-\* is not an IAM role ARN pattern/,
    );
  });

  it('never echoes a value in its message', () => {
    expect(() => loadConfig({ ...base, WEBHOOK_SECRET_ARN: 'super-secret-value' })).toThrow(
      /^WEBHOOK_SECRET_ARN: /,
    );
    try {
      loadConfig({ ...base, WEBHOOK_SECRET_ARN: 'super-secret-value' });
    } catch (error) {
      expect((error as Error).message).not.toContain('super-secret-value');
    }
  });

  it('accepts several webhook secrets for rotation and both Slack modes', () => {
    expect(loadConfig({ ...base, GITHUB_WEBHOOK_SECRET: 'old, new' }).webhookSecrets.github).toEqual([
      'old',
      'new',
    ]);
    expect(loadConfig({ ...base, SLACK_BOT_TOKEN: 'xoxb-1', SLACK_CHANNEL: '#deploys' }).slack).toMatchObject(
      { mode: 'bot' },
    );
    expect(loadConfig({ ...base, SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/x' }).slack).toEqual({
      mode: 'webhook',
      webhookUrl: 'https://hooks.slack.com/services/x',
    });
  });

  it('reads each further provider secret under its SPEC name, rotation lists included', () => {
    const secrets = loadConfig({
      ...base,
      BITBUCKET_WEBHOOK_SECRET: 'bb',
      BITBUCKET_SERVER_WEBHOOK_SECRET: 'bbs-old,bbs-new',
      AZURE_DEVOPS_WEBHOOK_SECRET: 'az',
      GITEA_WEBHOOK_SECRET: 'gt',
      GENERIC_WEBHOOK_SECRET: 'gen',
    }).webhookSecrets;
    expect(secrets).toMatchObject({
      bitbucket: ['bb'],
      'bitbucket-server': ['bbs-old', 'bbs-new'],
      'azure-devops': ['az'],
      gitea: ['gt'],
      generic: ['gen'],
    });
    expect(() => loadConfig({ ...base, GITEA_WEBHOOK_SECRET: 'a,,b' })).toThrow('GITEA_WEBHOOK_SECRET');
  });
});

describe('FLEET_SOURCE and its settings', () => {
  it.each([
    [
      'an SSM parameter path',
      'ssm:/gitops-sync/prod/fleet',
      { kind: 'ssm', name: '/gitops-sync/prod/fleet' },
    ],
    [
      'an SSM parameter ARN',
      'ssm:arn:aws:ssm:eu-west-1:123456789012:parameter/gitops-sync/fleet',
      { kind: 'ssm', name: 'arn:aws:ssm:eu-west-1:123456789012:parameter/gitops-sync/fleet' },
    ],
    [
      'an S3 object',
      's3://my-fleets/prod/fleet.yaml',
      { kind: 's3', bucket: 'my-fleets', key: 'prod/fleet.yaml' },
    ],
  ])('reads %s', (_name, value, expected) => {
    expect(loadConfig({ ...base, FLEET_SOURCE: value }).fleetSource).toEqual(expected);
  });

  it.each([
    ['ssm:'],
    ['s3://bucket'],
    ['s3://Bad_Bucket/key'],
    ['https://example.com/fleet.yaml'],
    ['ssm:/a b'],
  ])('refuses FLEET_SOURCE=%s naming the setting', (value) => {
    expect(() => loadConfig({ ...base, FLEET_SOURCE: value })).toThrow(
      'FLEET_SOURCE: must be ssm:/path/to/parameter or s3://bucket/key',
    );
  });

  it('defaults the TTL to 60 s and takes the SSM and S3 endpoint overrides', () => {
    expect(loadConfig(base).fleetTtlSeconds).toBe(60);
    const config = loadConfig({
      ...base,
      FLEET_TTL_SECONDS: '300',
      SSM_ENDPOINT: 'http://127.0.0.1:4583',
      S3_ENDPOINT: 'http://127.0.0.1:4572',
    });
    expect(config).toMatchObject({
      fleetTtlSeconds: 300,
      ssmEndpoint: 'http://127.0.0.1:4583',
      s3Endpoint: 'http://127.0.0.1:4572',
    });
    expect(() => loadConfig({ ...base, FLEET_TTL_SECONDS: '0' })).toThrow(
      'FLEET_TTL_SECONDS: must be between 1 and 86400',
    );
  });
});

describe('registry event settings', () => {
  it('reads ECR_EVENTS_SECRET as the ecr route secret, and no scope unless one is given', () => {
    const config = loadConfig({ ...base, ECR_EVENTS_SECRET: 'old,new' });
    expect(config.webhookSecrets.ecr).toEqual(['old', 'new']);
    expect(config.registryScope).toEqual({});
  });

  it('reads the account and region registry pushes must come from', () => {
    const config = loadConfig({
      ...base,
      ECR_EVENTS_ACCOUNT: '123456789012',
      ECR_EVENTS_REGION: 'eu-west-1',
    });
    expect(config.registryScope).toEqual({ account: '123456789012', region: 'eu-west-1' });
  });

  it.each([
    ['ECR_EVENTS_ACCOUNT', '1234'],
    ['ECR_EVENTS_ACCOUNT', 'arn:aws:iam::123456789012:root'],
    ['ECR_EVENTS_REGION', 'Europe'],
  ])('refuses %s=%s naming the setting, not the value', (setting, value) => {
    expect(() => loadConfig({ ...base, [setting]: value })).toThrow(ConfigError);
    try {
      loadConfig({ ...base, [setting]: value });
    } catch (error) {
      expect((error as Error).message).toContain(setting);
      expect((error as Error).message).not.toContain(value);
    }
  });
});
