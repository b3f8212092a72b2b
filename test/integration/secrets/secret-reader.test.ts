import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretReader } from '../../../lib/aws/secret-reader.js';
import { UpstreamError } from '../../../lib/errors.js';
import { startTestSecretsManager, type TestSecretsManager } from '../../helpers/secrets-manager.js';

describe('createSecretReader over the adapter and the double', () => {
  let sm: TestSecretsManager;
  let now = new Date('2026-01-01T00:00:00Z');
  const clock = { now: () => now };
  beforeAll(async () => {
    sm = await startTestSecretsManager({ secrets: [{ name: 'webhook', string: '{"github":"s3cr3t"}' }] });
  });
  afterAll(async () => {
    await sm.close();
  });

  it('reads a secret string once within the TTL and again after it', async () => {
    const reader = createSecretReader({ api: sm.api, region: 'eu-west-1', ttlSeconds: 60, clock });
    const before = sm.double.count('GetSecretValue');
    expect(await reader.getSecretString('webhook')).toBe('{"github":"s3cr3t"}');
    expect(await reader.getSecretString('webhook')).toBe('{"github":"s3cr3t"}');
    expect(sm.double.count('GetSecretValue') - before).toBe(1);
    now = new Date(now.getTime() + 61_000);
    await reader.getSecretString('webhook');
    expect(sm.double.count('GetSecretValue') - before).toBe(2);
  });

  it('takes the region from an ARN', async () => {
    const reader = createSecretReader({ api: sm.api, region: 'eu-west-1', clock });
    await reader
      .getSecretString('arn:aws:secretsmanager:ap-south-1:000000000000:secret:webhook-abcdef')
      .catch(() => undefined);
    expect(sm.double.requests.at(-1)?.region).toBe('ap-south-1');
  });

  it('fails with a typed error naming the secret, and does not cache the failure', async () => {
    const reader = createSecretReader({ api: sm.api, region: 'eu-west-1', clock });
    const error = await reader.getSecretString('absent').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toBe(
      "reading secret absent: ResourceNotFoundException: Secrets Manager can't find the specified secret.",
    );
    sm.double.put({ name: 'absent', string: 'now here' });
    expect(await reader.getSecretString('absent')).toBe('now here');
  });
});
