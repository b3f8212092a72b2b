import {
  BatchGetSecretValueCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../../infra/local/secrets-manager.js';

describe('the local Secrets Manager double speaks awsJson1_1 to the real SDK client', () => {
  let double: LocalSecretsManager;
  let client: SecretsManagerClient;
  beforeAll(async () => {
    double = await startLocalSecretsManager({
      region: 'eu-west-1',
      pageSize: 2,
      secrets: [
        {
          name: 'str',
          string: '{"a":1}',
          description: 'Database creds',
          tags: { team: 'shop', env: 'prod' },
        },
        { name: 'bin', binary: new Uint8Array([0, 1, 2, 255]) },
        { name: 'gone', string: 'x', deletedPending: true },
        { name: 'prod/a', string: 'a', tags: { team: 'web' } },
        { name: 'prod/b', string: 'b' },
        { name: 'prod/c', string: 'c' },
      ],
    });
    client = new SecretsManagerClient({
      region: 'eu-west-1',
      endpoint: double.endpoint,
      credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await double.close();
  });

  it('answers GetSecretValue with a Date CreatedDate, the ARN, stages and a string', async () => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: 'str' }));
    expect(out).toMatchObject({ Name: 'str', SecretString: '{"a":1}', VersionStages: ['AWSCURRENT'] });
    expect(out.ARN).toMatch(/^arn:aws:secretsmanager:eu-west-1:000000000000:secret:str-[0-9a-f]{6}$/);
    expect(out.CreatedDate).toBeInstanceOf(Date);
  });

  it('sends SecretBinary base64, which the SDK decodes to bytes', async () => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: 'bin' }));
    expect([...(out.SecretBinary ?? [])]).toEqual([0, 1, 2, 255]);
    expect(out.SecretString).toBeUndefined();
  });

  it('finds a secret by full and partial ARN', async () => {
    const { ARN } = await client.send(new GetSecretValueCommand({ SecretId: 'str' }));
    const partial = ARN?.slice(0, -7);
    expect((await client.send(new GetSecretValueCommand({ SecretId: ARN }))).Name).toBe('str');
    expect((await client.send(new GetSecretValueCommand({ SecretId: partial }))).Name).toBe('str');
  });

  it.each([
    ['an unknown secret', { SecretId: 'nope' }, 'ResourceNotFoundException'],
    ['an unknown stage', { SecretId: 'str', VersionStage: 'BLUE' }, 'ResourceNotFoundException'],
    ['a secret scheduled for deletion', { SecretId: 'gone' }, 'InvalidRequestException'],
  ])('answers %s with a typed SDK error', async (_name, input, name) => {
    await expect(client.send(new GetSecretValueCommand(input))).rejects.toMatchObject({
      name,
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('answers BatchGetSecretValue by ids with SecretValues and Errors', async () => {
    const out = await client.send(new BatchGetSecretValueCommand({ SecretIdList: ['str', 'nope', 'gone'] }));
    expect(out.SecretValues?.map((s) => s.Name)).toEqual(['str']);
    expect(out.Errors?.map((e) => [e.SecretId, e.ErrorCode])).toEqual([
      ['nope', 'ResourceNotFoundException'],
      ['gone', 'InvalidRequestException'],
    ]);
  });

  it('refuses BatchGetSecretValue with both ids and filters', async () => {
    await expect(
      client.send(
        new BatchGetSecretValueCommand({ SecretIdList: ['str'], Filters: [{ Key: 'name', Values: ['s'] }] }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  it('pages BatchGetSecretValue over filters with NextToken', async () => {
    const first = await client.send(
      new BatchGetSecretValueCommand({ Filters: [{ Key: 'name', Values: ['prod/'] }] }),
    );
    const second = await client.send(
      new BatchGetSecretValueCommand({
        Filters: [{ Key: 'name', Values: ['prod/'] }],
        NextToken: first.NextToken,
      }),
    );
    expect(first.SecretValues?.map((s) => s.Name)).toEqual(['prod/a', 'prod/b']);
    expect(second.SecretValues?.map((s) => s.Name)).toEqual(['prod/c']);
    expect(second.NextToken).toBeUndefined();
  });

  it.each([
    ['name is a case-sensitive prefix', [{ Key: 'name', Values: ['Prod/'] }], []],
    ['! negates a value', [{ Key: 'name', Values: ['!prod/'] }], ['str', 'bin']],
    [
      'tag-key and tag-value are matched independently',
      [
        { Key: 'tag-key', Values: ['team'] },
        { Key: 'tag-value', Values: ['shop'] },
      ],
      ['str'],
    ],
    ['description is case-insensitive', [{ Key: 'description', Values: ['database'] }], ['str']],
  ] as const)('filters ListSecrets: %s', async (_name, filters, names) => {
    const all: string[] = [];
    let token: string | undefined;
    do {
      const out = await client.send(
        new ListSecretsCommand({
          Filters: filters.map((f) => ({ Key: f.Key, Values: [...f.Values] })),
          ...(token ? { NextToken: token } : {}),
        }),
      );
      all.push(...(out.SecretList ?? []).map((s) => s.Name ?? ''));
      token = out.NextToken;
    } while (token);
    expect(all).toEqual(names);
  });

  it('hides secrets scheduled for deletion from ListSecrets unless asked', async () => {
    const names = async (include: boolean) => {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListSecretsCommand({ IncludePlannedDeletion: include, ...(token ? { NextToken: token } : {}) }),
        );
        out.push(...(page.SecretList ?? []).map((s) => s.Name ?? ''));
        token = page.NextToken;
      } while (token);
      return out;
    };
    expect(await names(false)).not.toContain('gone');
    expect(await names(true)).toContain('gone');
  });

  it('answers DescribeSecret with tags', async () => {
    const out = await client.send(new DescribeSecretCommand({ SecretId: 'str' }));
    expect(out.Tags).toEqual([
      { Key: 'team', Value: 'shop' },
      { Key: 'env', Value: 'prod' },
    ]);
  });

  it('records each request with its operation, body and signing key', () => {
    expect(double.requests[0]).toEqual({
      service: 'secretsmanager',
      operation: 'GetSecretValue',
      body: { SecretId: 'str' },
      accessKeyId: 'AKIATEST',
      region: 'eu-west-1',
    });
  });

  it('answers an unknown operation with a 400 JSON error', async () => {
    const res = await fetch(double.endpoint, {
      method: 'POST',
      headers: {
        'x-amz-target': 'secretsmanager.DeleteSecret',
        'content-type': 'application/x-amz-json-1.1',
      },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });
});
