import { describe, expect, it } from 'vitest';
import {
  apiToken,
  credentialsFor,
  GitCredentialsError,
  gitAuthCallbacks,
  parseGitCredentials,
} from '../../../lib/git/credentials.js';

describe('parseGitCredentials', () => {
  it.each([
    ['a plain string is a token', 'ghp_abc\n', { token: 'ghp_abc' }],
    ['JSON with a token is a token', '{"token":"glpat-1"}', { token: 'glpat-1' }],
    [
      'JSON with a token and a username keeps both',
      '{"token":"t","username":"bot"}',
      { token: 't', username: 'bot' },
    ],
    [
      'JSON with a username and password is basic auth',
      '{"username":"u","password":"p"}',
      { username: 'u', password: 'p' },
    ],
  ])('%s', (_name, secret, expected) => {
    expect(parseGitCredentials(secret)).toEqual(expected);
  });

  it.each([
    ['an empty secret', '  '],
    ['broken JSON', '{"token": "sekrit'],
    ['JSON with neither a token nor a password', '{"user":"sekrit"}'],
  ])('rejects %s without quoting the value', (_name, secret) => {
    let caught: unknown;
    try {
      parseGitCredentials(secret);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GitCredentialsError);
    expect((caught as Error).message).not.toContain('sekrit');
  });
});

describe('gitAuthCallbacks', () => {
  it('sends a token as the Basic password with the GitHub-style user', async () => {
    const { onAuth } = gitAuthCallbacks({ token: 't' }, 'github');
    expect(await onAuth?.('https://x', {})).toEqual({ username: 'x-access-token', password: 't' });
  });

  it('sends a GitLab token with the oauth2 user GitLab expects', async () => {
    const { onAuth } = gitAuthCallbacks({ token: 't' }, 'gitlab');
    expect(await onAuth?.('https://x', {})).toEqual({ username: 'oauth2', password: 't' });
  });

  it('cancels after the host refused the credentials once, instead of looping', async () => {
    const { onAuthFailure } = gitAuthCallbacks({ username: 'u', password: 'p' });
    expect(await onAuthFailure?.('https://x', {})).toEqual({ cancel: true });
  });

  it('offers nothing without credentials, so a 401 is reported as it is', () => {
    expect(gitAuthCallbacks(undefined)).toEqual({});
  });
});

describe('credentialsFor', () => {
  const secrets = {
    read: [] as string[],
    async getSecretString(id: string) {
      this.read.push(id);
      return '{"username":"deploy","password":"pw"}';
    },
  };

  it('uses a literal token without reading Secrets Manager', async () => {
    expect(await credentialsFor({ token: 'literal' }, secrets)).toEqual({ token: 'literal' });
    expect(secrets.read).toEqual([]);
  });

  it('reads and parses the tokenSecret', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:repo';
    expect(await credentialsFor({ tokenSecret: arn }, secrets)).toEqual({
      username: 'deploy',
      password: 'pw',
    });
    expect(secrets.read).toEqual([arn]);
  });

  it('has none for a public repository', async () => {
    expect(await credentialsFor({}, secrets)).toBeUndefined();
  });
});

describe('apiToken', () => {
  it.each([
    ['a token', { token: 't' }, 't'],
    ['basic credentials, whose password is the token', { username: 'u', password: 'p' }, 'p'],
    ['nothing', undefined, undefined],
  ])('takes the API token from %s', (_name, credentials, expected) => {
    expect(apiToken(credentials)).toBe(expected);
  });
});
