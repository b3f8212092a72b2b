import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAwsCredentials, startLocalStack } from '../../../infra/local/stack.js';
import { createMemoryLogger } from '../../../lib/logger.js';

const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
let dir: string;

beforeAll(async () => {
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  dir = await mkdtemp(join(tmpdir(), 'real-fleet-stack-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  for (const [key, value] of [
    ['AWS_ACCESS_KEY_ID', saved.id],
    ['AWS_SECRET_ACCESS_KEY', saved.secret],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

async function fleetFile(text: string): Promise<string> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(path, text);
  return path;
}

describe('the local stack with a real fleet', () => {
  it('never sets dummy AWS credentials, so the user profile reaches the real AWS APIs', async () => {
    const path = await fleetFile(
      'clusters:\n  - name: lab\n    server: http://127.0.0.1:8001\n    auth: { token: lab-token }\n',
    );
    const stack = await startLocalStack({
      env: { PORT: '0', FLEET_CONFIG: path },
      logger: createMemoryLogger(),
      schedule: false,
    });
    try {
      expect(process.env.AWS_ACCESS_KEY_ID).toBeUndefined();
      expect(process.env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
      expect(stack.world).toBeUndefined();
      // The local rules apply: plain http and a literal token are fine here.
      expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
    } finally {
      await stack.close();
    }
  });

  it('stops start-up listing every problem of a broken FLEET_CONFIG', async () => {
    const path = await fleetFile('clusters:\n  - name: lab\n    sever: http://127.0.0.1:8001\n');
    await expect(
      startLocalStack({
        env: { PORT: '0', FLEET_CONFIG: path },
        logger: createMemoryLogger(),
        schedule: false,
      }),
    ).rejects.toThrow(
      `${path}:2: clusters[0].server: is required\n${path}:2: clusters[0].auth: is required\n${path}:3: clusters[0].sever: unknown field (did you mean "server"?)`,
    );
  });
});

describe('localAwsCredentials', () => {
  it.each([
    [
      'the simulated world without credentials gets dummy ones',
      {},
      false,
      { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' },
    ],
    ['the simulated world keeps credentials it was given', { AWS_ACCESS_KEY_ID: 'AKIDUSER' }, false, {}],
    ['a real fleet never gets dummy credentials', {}, true, {}],
  ])('%s', (_name, env, realFleet, expected) => {
    expect(localAwsCredentials(env, realFleet)).toEqual(expected);
  });
});
