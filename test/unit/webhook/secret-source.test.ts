import { describe, expect, it } from 'vitest';
import type { Clock, SecretReader } from '../../../lib/ports.js';
import { parseStoredSecrets, webhookSecretSource } from '../../../lib/webhook/secret-source.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhooks-AbCdEf';

function manualClock(start = Date.parse('2025-03-04T12:00:00Z')) {
  let now = start;
  return {
    now: () => new Date(now),
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
  } satisfies Clock & { advance(seconds: number): void };
}

function reader(values: (string | Error)[]) {
  const calls: string[] = [];
  return {
    calls,
    async getSecretString(secretId: string): Promise<string> {
      calls.push(secretId);
      const next = values.length > 1 ? values.shift() : values[0];
      if (next instanceof Error) throw next;
      if (next === undefined) throw new Error('no value');
      return next;
    },
  } satisfies SecretReader & { calls: string[] };
}

/** What the source serves: every provider's list, empty unless given. */
function all(given: Record<string, string[]>) {
  return {
    github: [],
    gitlab: [],
    bitbucket: [],
    'bitbucket-server': [],
    'azure-devops': [],
    gitea: [],
    generic: [],
    ecr: [],
    harbor: [],
    ...given,
  };
}

describe('webhookSecretSource', () => {
  it('serves the direct secrets from config when no secret ARN is set', async () => {
    const source = webhookSecretSource({ webhookSecrets: { github: ['a', 'b'], gitlab: ['t'] } });
    expect(await source()).toEqual(all({ github: ['a', 'b'], gitlab: ['t'] }));
  });

  it('merges the direct secrets with the Secrets Manager JSON, strings and lists alike', async () => {
    const secretReader = reader([JSON.stringify({ github: ['old', 'new'], gitlab: 'token' })]);
    const source = webhookSecretSource(
      { webhookSecrets: { secretArn: ARN, github: ['local', 'old'], gitlab: [] } },
      secretReader,
    );
    expect(await source()).toEqual(all({ github: ['local', 'old', 'new'], gitlab: ['token'] }));
    expect(secretReader.calls).toEqual([ARN]);
  });

  it('reads Secrets Manager once within five minutes and again after, so rotation is picked up', async () => {
    const clock = manualClock();
    const secretReader = reader([JSON.stringify({ github: 'v1' }), JSON.stringify({ github: 'v2' })]);
    const source = webhookSecretSource(
      { webhookSecrets: { secretArn: ARN, github: [], gitlab: [] } },
      secretReader,
      {
        clock,
      },
    );
    expect((await source()).github).toEqual(['v1']);
    clock.advance(299);
    expect((await source()).github).toEqual(['v1']);
    clock.advance(2);
    expect((await source()).github).toEqual(['v2']);
    expect(secretReader.calls).toHaveLength(2);
  });

  it('shares one read between concurrent requests', async () => {
    const secretReader = reader([JSON.stringify({ gitlab: 't' })]);
    const source = webhookSecretSource(
      { webhookSecrets: { secretArn: ARN, github: [], gitlab: [] } },
      secretReader,
    );
    await Promise.all([source(), source(), source()]);
    expect(secretReader.calls).toHaveLength(1);
  });

  it('fails (our failure) when Secrets Manager fails, and tries again on the next call', async () => {
    const secretReader = reader([new Error('AccessDeniedException'), JSON.stringify({ github: 's' })]);
    const source = webhookSecretSource(
      { webhookSecrets: { secretArn: ARN, github: [], gitlab: [] } },
      secretReader,
    );
    await expect(source()).rejects.toMatchObject({ name: 'UpstreamError', retryable: true });
    expect((await source()).github).toEqual(['s']);
  });

  it('refuses to be built with a secret ARN but no reader', () => {
    expect(() => webhookSecretSource({ webhookSecrets: { secretArn: ARN, github: [], gitlab: [] } })).toThrow(
      'WEBHOOK_SECRET_ARN',
    );
  });
});

describe('parseStoredSecrets', () => {
  it.each([
    ['a string per provider', '{"github":"g","gitlab":"t"}', all({ github: ['g'], gitlab: ['t'] })],
    ['lists for rotation', '{"github":["g1","g2"]}', all({ github: ['g1', 'g2'] })],
    [
      'blank entries dropped and values trimmed',
      '{"github":[" g ",""],"gitlab":null}',
      all({ github: ['g'] }),
    ],
    [
      'each further provider under its route name',
      '{"bitbucket":"b","bitbucket-server":["s1","s2"],"azure-devops":"a","gitea":"g","generic":"x","ecr":"e"}',
      all({
        ecr: ['e'],
        bitbucket: ['b'],
        'bitbucket-server': ['s1', 's2'],
        'azure-devops': ['a'],
        gitea: ['g'],
        generic: ['x'],
      }),
    ],
  ])('reads %s', (_name, raw, expected) => {
    expect(parseStoredSecrets(raw)).toEqual(expected);
  });

  it.each([
    ['text that is not JSON', 'hunter2-plain-value'],
    ['a JSON list', '["hunter2-plain-value"]'],
    ['a field of the wrong type', '{"github":{"value":"hunter2-plain-value"}}'],
    ['a list holding a number', '{"gitlab":["hunter2-plain-value",3]}'],
  ])('refuses %s without echoing the value', (_name, raw) => {
    let message = '';
    try {
      parseStoredSecrets(raw);
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toMatch(/webhook secret/);
    expect(message).not.toContain('hunter2');
  });
});
