import { ConfigError } from '../errors.js';
import { type AllowRule, parseAllowList } from './allow-list.js';

type Env = Readonly<Record<string, string | undefined>>;

export const UI_AUTH_MODES = ['none', 'iam', 'oidc'] as const;

/** `UI_AUTH=oidc`: the OpenID Connect provider people sign in with, and the key of their session cookie. */
export interface OidcSettings {
  readonly mode: 'oidc';
  readonly issuer: string;
  readonly clientId: string;
  /** `OIDC_CLIENT_SECRET` (local); neither this nor the ARN: a public client (PKCE only). */
  readonly clientSecret?: string;
  readonly clientSecretArn?: string;
  readonly allowed: readonly AllowRule[];
  /** `UI_SESSION_SECRET` (local) or `UI_SESSION_SECRET_ARN`: exactly one. */
  readonly sessionSecret?: string;
  readonly sessionSecretArn?: string;
}

export type UiAuthSettings = { readonly mode: 'none' } | { readonly mode: 'iam' } | OidcSettings;

/** A session key shorter than this is refused: the cookie's key is derived from it. */
export const MIN_SESSION_SECRET_LENGTH = 32;

/**
 * `UI_AUTH` and, for `oidc`, its settings. The default is `iam` inside Lambda (the page behind the API's
 * IAM auth) and `none` elsewhere (the local stack on loopback).
 */
export function uiAuthSettings(env: Env): UiAuthSettings {
  const raw = text(env, 'UI_AUTH') ?? (text(env, 'AWS_LAMBDA_FUNCTION_NAME') === undefined ? 'none' : 'iam');
  const mode = UI_AUTH_MODES.find((m) => m === raw.toLowerCase());
  if (mode === undefined) throw new ConfigError('UI_AUTH', `must be one of ${UI_AUTH_MODES.join(', ')}`);
  if (mode !== 'oidc') return { mode };
  const clientSecret = text(env, 'OIDC_CLIENT_SECRET');
  const clientSecretArn = secretArn(env, 'OIDC_CLIENT_SECRET_ARN');
  if (clientSecret !== undefined && clientSecretArn !== undefined)
    throw new ConfigError('OIDC_CLIENT_SECRET', 'and OIDC_CLIENT_SECRET_ARN are exclusive; set one');
  const sessionSecret = text(env, 'UI_SESSION_SECRET');
  const sessionSecretArn = secretArn(env, 'UI_SESSION_SECRET_ARN');
  if (sessionSecret !== undefined && sessionSecretArn !== undefined)
    throw new ConfigError('UI_SESSION_SECRET', 'and UI_SESSION_SECRET_ARN are exclusive; set one');
  if (sessionSecret === undefined && sessionSecretArn === undefined)
    throw new ConfigError(
      'UI_SESSION_SECRET_ARN',
      '(or UI_SESSION_SECRET locally) is required with UI_AUTH=oidc',
    );
  if (sessionSecret !== undefined && sessionSecret.length < MIN_SESSION_SECRET_LENGTH)
    throw new ConfigError('UI_SESSION_SECRET', `must be at least ${MIN_SESSION_SECRET_LENGTH} characters`);
  const allowed = text(env, 'OIDC_ALLOWED');
  if (allowed === undefined)
    throw new ConfigError('OIDC_ALLOWED', 'is required with UI_AUTH=oidc (emails, @domains, group:<name>)');
  return {
    mode,
    issuer: issuer(env),
    clientId: required(env, 'OIDC_CLIENT_ID'),
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(clientSecretArn === undefined ? {} : { clientSecretArn }),
    allowed: parseAllowList(allowed),
    ...(sessionSecret === undefined ? {} : { sessionSecret }),
    ...(sessionSecretArn === undefined ? {} : { sessionSecretArn }),
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export const isLoopback = (url: URL): boolean => LOOPBACK.has(url.hostname);

/** https, or http on loopback only (a test or local provider): the ID token travels over this. */
function issuer(env: Env): string {
  const raw = required(env, 'OIDC_ISSUER');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('OIDC_ISSUER', 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url)))
    throw new ConfigError('OIDC_ISSUER', 'must be an https URL (http only on loopback)');
  if (url.search !== '' || url.hash !== '')
    throw new ConfigError('OIDC_ISSUER', 'must have no query or fragment');
  return raw;
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, 'is required with UI_AUTH=oidc');
  return value;
}

function secretArn(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/.test(raw))
    throw new ConfigError(name, 'must be an ARN of a secretsmanager secret');
  return raw;
}
