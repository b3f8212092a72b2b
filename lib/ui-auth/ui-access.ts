import type { Logger, SecretReader } from '../ports.js';
import { LoginSetupError } from './login-errors.js';
import type { OidcUiDeps } from './login-routes.js';
import type { LoginStates } from './login-states.js';
import { oidcProvider } from './oidc-provider.js';
import { type CookieKeys, cookieKeys } from './sealed-cookie.js';
import { MIN_SESSION_SECRET_LENGTH, type OidcSettings, type UiAuthSettings } from './settings.js';

/** Who may open `/ui/*`: the API token (none), API Gateway's IAM auth (iam), or a person's session (oidc). */
export type UiAccess =
  | { readonly mode: 'none' }
  | { readonly mode: 'iam' }
  | { readonly mode: 'oidc'; readonly deps: OidcUiDeps };

/** Bound on each call to the sign-in provider: the API function has 10 s, a login makes up to three. */
const PROVIDER_TIMEOUT_SECONDS = 3;

export interface UiAccessPorts {
  readonly secrets: SecretReader;
  readonly states: LoginStates;
  readonly publicUrl: () => string | undefined;
  readonly logger: Logger;
}

/** Built once per cold start; the secrets are read on first use (and again after their cache's TTL). */
export function uiAccess(settings: UiAuthSettings, ports: UiAccessPorts): UiAccess {
  if (settings.mode !== 'oidc') return { mode: settings.mode };
  return {
    mode: 'oidc',
    deps: {
      settings,
      provider: oidcProvider({
        issuer: settings.issuer,
        clientId: settings.clientId,
        clientSecret: () => clientSecret(settings, ports.secrets),
        timeoutSeconds: PROVIDER_TIMEOUT_SECONDS,
      }),
      states: ports.states,
      keys: sessionKeys(settings, ports.secrets),
      publicUrl: ports.publicUrl,
      logger: ports.logger,
    },
  };
}

async function clientSecret(settings: OidcSettings, secrets: SecretReader): Promise<string | undefined> {
  if (settings.clientSecretArn === undefined) return settings.clientSecret;
  return readSecret(secrets, settings.clientSecretArn, 'OIDC_CLIENT_SECRET_ARN');
}

function sessionKeys(settings: OidcSettings, secrets: SecretReader): () => Promise<CookieKeys> {
  let last: { readonly secret: string; readonly keys: CookieKeys } | undefined;
  return async () => {
    const secret =
      settings.sessionSecretArn === undefined
        ? (settings.sessionSecret ?? '')
        : await readSecret(secrets, settings.sessionSecretArn, 'UI_SESSION_SECRET_ARN');
    if (secret.length < MIN_SESSION_SECRET_LENGTH)
      throw new LoginSetupError(
        `Sign-in is not configured: the UI_SESSION_SECRET_ARN secret is shorter than ${MIN_SESSION_SECRET_LENGTH} characters`,
      );
    if (last?.secret !== secret) last = { secret, keys: cookieKeys(secret) };
    return last.keys;
  };
}

async function readSecret(secrets: SecretReader, arn: string, setting: string): Promise<string> {
  try {
    return (await secrets.getSecretString(arn)).trim();
  } catch (error) {
    throw new LoginSetupError(`Sign-in is not configured: the ${setting} secret could not be read`, {
      cause: error,
    });
  }
}
