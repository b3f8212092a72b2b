import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { LoginRefusedError, ProviderUnavailableError } from './login-errors.js';
import { isLoopback } from './settings.js';

export interface OidcProviderOptions {
  readonly issuer: string;
  readonly clientId: string;
  /** Undefined: a public client (PKCE only, no client authentication). */
  readonly clientSecret: () => Promise<string | undefined>;
  /** Bound on each call to the provider (discovery, token endpoint, JWKS), in seconds. */
  readonly timeoutSeconds: number;
}

export interface AuthorizationRequest {
  readonly redirectUri: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeChallenge: string;
  readonly wantsGroups: boolean;
}

export interface CodeExchange {
  /** The redirect URI with the query the provider sent back. */
  readonly callbackUrl: URL;
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

/** The verified ID token's claims. */
export type IdClaims = Readonly<Record<string, unknown>> & { readonly sub: string };

export interface OidcProvider {
  authorizationUrl(request: AuthorizationRequest): Promise<URL>;
  exchange(exchange: CodeExchange): Promise<IdClaims>;
}

/**
 * Any OpenID Connect provider through openid-client: discovery at `{issuer}/.well-known/openid-configuration`
 * (cached; a failure is not), the code grant with PKCE, state and nonce, and the ID token verified again
 * with jose against the issuer's JWKS (signature, iss, aud, exp, nonce) — openid-client alone trusts TLS
 * for the signature of a token from the token endpoint.
 */
export function oidcProvider(options: OidcProviderOptions): OidcProvider {
  let discovered: Promise<client.Configuration> | undefined;
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const configuration = () => {
    if (discovered !== undefined) return discovered;
    const attempt = discover(options);
    discovered = attempt;
    attempt.catch(() => {
      if (discovered === attempt) discovered = undefined;
    });
    return attempt;
  };
  return {
    async authorizationUrl(request) {
      const config = await configuration();
      const scopes = ['openid', 'email', 'profile'];
      const supported = config.serverMetadata().scopes_supported;
      // Only where the provider lists it: some (Google, Entra ID) refuse a scope they do not know.
      if (request.wantsGroups && supported?.includes('groups') === true) scopes.push('groups');
      return client.buildAuthorizationUrl(config, {
        redirect_uri: request.redirectUri,
        scope: scopes.join(' '),
        state: request.state,
        nonce: request.nonce,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },
    async exchange(exchange) {
      const config = await configuration();
      let idToken: string | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(config, exchange.callbackUrl, {
          pkceCodeVerifier: exchange.verifier,
          expectedState: exchange.state,
          expectedNonce: exchange.nonce,
          idTokenExpected: true,
        });
        idToken = tokens.id_token;
      } catch (error) {
        throw classify(error, 'the token endpoint');
      }
      if (idToken === undefined) throw new LoginRefusedError('the provider sent no ID token');
      const metadata = config.serverMetadata();
      if (metadata.jwks_uri === undefined) throw new LoginRefusedError('the provider publishes no JWKS');
      jwks ??= createRemoteJWKSet(new URL(metadata.jwks_uri), {
        timeoutDuration: options.timeoutSeconds * 1000,
      });
      return verifyIdToken(idToken, jwks, {
        issuer: metadata.issuer,
        audience: options.clientId,
        nonce: exchange.nonce,
      });
    },
  };
}

async function discover(options: OidcProviderOptions): Promise<client.Configuration> {
  const secret = await options.clientSecret();
  const issuer = new URL(options.issuer);
  try {
    return await client.discovery(
      issuer,
      options.clientId,
      undefined,
      secret === undefined ? client.None() : client.ClientSecretBasic(secret),
      {
        timeout: options.timeoutSeconds,
        // Plain http only for a provider on loopback (settings refuse it elsewhere).
        execute: issuer.protocol === 'http:' && isLoopback(issuer) ? [client.allowInsecureRequests] : [],
      },
    );
  } catch (error) {
    throw classify(error, 'discovery');
  }
}

type KeySet = Parameters<typeof jwtVerify>[1];

/** The ID token's signature against the issuer's keys, its iss, aud, exp and nonce. */
export async function verifyIdToken(
  idToken: string,
  keys: KeySet,
  expected: { readonly issuer: string; readonly audience: string; readonly nonce: string },
): Promise<IdClaims> {
  try {
    const { payload } = await jwtVerify(idToken, keys, {
      issuer: expected.issuer,
      audience: expected.audience,
      requiredClaims: ['exp', 'iat', 'sub'],
      clockTolerance: 30,
    });
    if (payload.nonce !== expected.nonce) throw new LoginRefusedError('the ID token is for another login');
    if (typeof payload.sub !== 'string') throw new LoginRefusedError('the ID token names no subject');
    return { ...payload, sub: payload.sub };
  } catch (error) {
    if (error instanceof LoginRefusedError) throw error;
    throw classify(error, 'the JWKS');
  }
}

/** A network failure or timeout is the provider being down; any other failure refuses this login. */
function classify(error: unknown, step: string): Error {
  if (error instanceof LoginRefusedError || error instanceof ProviderUnavailableError) return error;
  if (unreachable(error))
    return new ProviderUnavailableError(`the sign-in provider did not answer (${step})`, { cause: error });
  if (error instanceof joseErrors.JOSEError)
    return new LoginRefusedError(`the ID token is not valid (${error.code})`, { cause: error });
  // The provider's OAuth error (`invalid_grant`, ...) when it sent one, else openid-client's code.
  const oauth = (error as { error?: unknown }).error;
  const code =
    typeof oauth === 'string' && /^[a-z_]{1,64}$/.test(oauth) ? oauth : (error as { code?: unknown }).code;
  return new LoginRefusedError(
    `the sign-in provider refused the login${typeof code === 'string' ? ` (${code})` : ''}`,
    { cause: error },
  );
}

function unreachable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return true;
    if (e instanceof joseErrors.JWKSTimeout) return true;
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|UND_ERR|EHOSTUNREACH)/.test(code))
      return true;
    // openid-client: the provider answered 5xx, or not with JSON.
    const status = (e as { status?: unknown }).status;
    if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && typeof status === 'number' && status >= 500) return true;
  }
  return false;
}
