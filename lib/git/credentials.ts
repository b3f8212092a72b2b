import type { AuthCallback, AuthFailureCallback } from 'isomorphic-git';
import { AppError } from '../errors.js';
import type { RepositoryConfig, RepositoryProvider } from '../fleet/fleet-config.js';
import type { SecretReader } from '../ports.js';

/** Repository credentials from the fleet file: a token, or a username and password. */
export type GitCredentials =
  | { readonly token: string; readonly username?: string }
  | { readonly username: string; readonly password: string };

export class GitCredentialsError extends AppError {
  constructor(message: string) {
    super(message, { code: 'git-credentials' });
  }
}

/**
 * Reads a repository secret as the fleet file describes it: a plain token string, or JSON
 * `{"token": "..."}` / `{"username": "...", "password": "..."}`. Errors never quote the value.
 */
export function parseGitCredentials(secret: string): GitCredentials {
  const text = secret.trim();
  if (text === '') throw new GitCredentialsError('repository secret is empty');
  if (!text.startsWith('{')) return { token: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GitCredentialsError('repository secret looks like JSON but does not parse');
  }
  const record = value as Record<string, unknown>;
  if (typeof record.token === 'string' && record.token !== '') {
    return typeof record.username === 'string' && record.username !== ''
      ? { token: record.token, username: record.username }
      : { token: record.token };
  }
  if (typeof record.username === 'string' && typeof record.password === 'string' && record.password !== '') {
    return { username: record.username, password: record.password };
  }
  throw new GitCredentialsError('repository secret needs "token", or "username" and "password"');
}

/** A fleet repository's credentials: its literal `token`, or its `tokenSecret` read through Secrets Manager. */
export async function credentialsFor(
  repo: Pick<RepositoryConfig, 'token' | 'tokenSecret'>,
  secrets: SecretReader,
): Promise<GitCredentials | undefined> {
  if (repo.token !== undefined) return { token: repo.token };
  if (repo.tokenSecret === undefined) return undefined;
  return parseGitCredentials(await secrets.getSecretString(repo.tokenSecret));
}

/** The token for a provider's REST API (compare): the token, or the password of basic credentials. */
export function apiToken(credentials: GitCredentials | undefined): string | undefined {
  if (credentials === undefined) return undefined;
  return 'token' in credentials ? credentials.token : credentials.password;
}

/**
 * The Basic-auth user a host expects in front of a token (GitLab wants `oauth2`, Bitbucket Cloud access
 * tokens `x-token-auth`; GitHub, Bitbucket Server and Azure DevOps take any).
 */
export function tokenUsername(provider: RepositoryProvider | undefined): string {
  if (provider === 'gitlab') return 'oauth2';
  return provider === 'bitbucket' ? 'x-token-auth' : 'x-access-token';
}

export interface GitAuthCallbacks {
  readonly onAuth?: AuthCallback;
  readonly onAuthFailure?: AuthFailureCallback;
}

/**
 * isomorphic-git asks `onAuth` after a 401 and retries once; a second 401 lands in `onAuthFailure`,
 * which cancels rather than loop. No credentials: no callbacks, so a 401 is reported as is.
 */
export function gitAuthCallbacks(
  credentials: GitCredentials | undefined,
  provider?: RepositoryProvider,
): GitAuthCallbacks {
  if (credentials === undefined) return {};
  const auth =
    'token' in credentials
      ? { username: credentials.username ?? tokenUsername(provider), password: credentials.token }
      : { username: credentials.username, password: credentials.password };
  return { onAuth: () => auth, onAuthFailure: () => ({ cancel: true }) };
}
