import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubAppTokens } from '../../../lib/check-run/github-app-token.js';

const PKCS8 = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

const secrets = (value: string | Error) => ({
  getSecretString: async (id: string) => {
    if (id !== 'gitops-sync/github-app') throw new Error(`unexpected secret ${id}`);
    if (value instanceof Error) throw value;
    return value;
  },
});

describe('the GitHub App key, read at cold start', () => {
  it('accepts a PEM RSA key from the secret, also one stored with \\n escapes on one line', async () => {
    const app = { appId: 1, privateKeySecret: 'gitops-sync/github-app' };
    await expect(githubAppTokens({ app, secrets: secrets(PKCS8) }).checkKey()).resolves.toBeUndefined();
    const oneLine = PKCS8.trim().replace(/\n/g, '\\n');
    await expect(githubAppTokens({ app, secrets: secrets(oneLine) }).checkKey()).resolves.toBeUndefined();
  });

  it.each([
    { name: 'a token instead of a key', value: 'ghp_notakey', problem: /must be a PEM private key/ },
    {
      name: 'a certificate',
      value: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      problem: /must be a PEM private key/,
    },
  ])('says clearly which setting holds $name, never quoting it', async ({ value, problem }) => {
    const tokens = githubAppTokens({
      app: { appId: 1, privateKeySecret: 'gitops-sync/github-app' },
      secrets: secrets(value),
    });
    const error = await tokens.checkKey().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/^githubApp\.privateKeySecret: the key /);
    expect(error?.message).toMatch(problem);
    expect(error?.message).not.toContain(value.slice(0, 12));
  });

  it('says when the secret cannot be read, and reads it again on the next call', async () => {
    let calls = 0;
    const tokens = githubAppTokens({
      app: { appId: 1, privateKeySecret: 'gitops-sync/github-app' },
      secrets: {
        getSecretString: async () => {
          calls += 1;
          if (calls === 1) throw new Error('throttled');
          return PKCS8;
        },
      },
    });
    await expect(tokens.checkKey()).rejects.toThrow('githubApp.privateKeySecret: the secret cannot be read');
    await expect(tokens.checkKey()).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
