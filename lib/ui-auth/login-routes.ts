import { timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import type { HttpRequest } from '../http/request.js';
import type { HttpResponse } from '../http/response.js';
import type { Logger } from '../ports.js';
import { isAllowed, wantsGroups } from './allow-list.js';
import { clearCookie, LOGIN_COOKIE, readCookie, SESSION_COOKIE, setCookie } from './cookies.js';
import { LoginRefusedError, LoginSetupError, ProviderUnavailableError } from './login-errors.js';
import type { LoginStates } from './login-states.js';
import { safeNextPath } from './next-path.js';
import type { OidcProvider } from './oidc-provider.js';
import { loginPage, redirect } from './pages.js';
import { type CookieKeys, openLogin, openSession, seal } from './sealed-cookie.js';
import { isLoopback, type OidcSettings } from './settings.js';

/** A login left unfinished this long must start again. */
export const LOGIN_TTL_SECONDS = 600;
/** How long a session opens the pages before the provider is asked again. */
export const SESSION_TTL_SECONDS = 8 * 3600;

export interface OidcUiDeps {
  readonly settings: Pick<OidcSettings, 'allowed'>;
  readonly provider: OidcProvider;
  readonly states: LoginStates;
  /** The cookie keys, derived from UI_SESSION_SECRET(_ARN). */
  readonly keys: () => Promise<CookieKeys>;
  /** PUBLIC_URL: the redirect URI is `{PUBLIC_URL}/ui/callback`. */
  readonly publicUrl: () => string | undefined;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/**
 * `UI_AUTH=oidc`: `/ui/login`, `/ui/callback`, `/ui/logout`, and every other `/ui/*` page only with a valid
 * session (else a redirect to the login that comes back to it).
 */
export async function oidcUi(
  rest: readonly string[],
  request: HttpRequest,
  deps: OidcUiDeps,
  page: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const base = deps.publicUrl();
  if (base === undefined)
    return loginPage(503, 'Sign-in is not configured: PUBLIC_URL (the address of this page) is not known.');
  const now = deps.now?.() ?? new Date();
  const secure = !(new URL(base).protocol === 'http:' && isLoopback(new URL(base)));
  const route = rest.length === 1 ? rest[0] : undefined;
  try {
    const keys = await deps.keys();
    if (route === 'login') return await login(request, deps, { base, secure, keys, now });
    if (route === 'callback') return await callback(request, deps, { base, secure, keys, now });
    if (route === 'logout')
      return loginPage(200, 'You are signed out of gitops-sync.', {
        'set-cookie': clearCookie(SESSION_COOKIE, { path: '/ui', secure }),
      });
    const session = await openSession(keys, readCookie(request.headers, SESSION_COOKIE), now);
    if (session === undefined) return redirect(`/ui/login?next=${encodeURIComponent(here(request))}`);
    return await page();
  } catch (error) {
    if (error instanceof ProviderUnavailableError) {
      deps.logger.warn('sign-in provider unavailable', { error: error.message });
      return loginPage(503, `${error.message}. Try again in a moment.`);
    }
    if (error instanceof LoginSetupError) {
      deps.logger.error('sign-in not configured', { error: error.message });
      return loginPage(503, `${error.message}.`);
    }
    if (error instanceof LoginRefusedError) {
      deps.logger.warn('sign-in refused', { error: error.message });
      return loginPage(401, `${error.message}. Sign in again.`);
    }
    throw error;
  }
}

interface Step {
  readonly base: string;
  readonly secure: boolean;
  readonly keys: CookieKeys;
  readonly now: Date;
}

async function login(request: HttpRequest, deps: OidcUiDeps, step: Step): Promise<HttpResponse> {
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  const url = await deps.provider.authorizationUrl({
    redirectUri: `${step.base}/ui/callback`,
    state,
    nonce,
    codeChallenge: await client.calculatePKCECodeChallenge(verifier),
    wantsGroups: wantsGroups(deps.settings.allowed),
  });
  const next = safeNextPath(request.query.next);
  const sealed = await seal(
    step.keys.login,
    'login',
    { state, nonce, verifier, next },
    LOGIN_TTL_SECONDS,
    step.now,
  );
  return redirect(url.href, {
    'set-cookie': setCookie(LOGIN_COOKIE, sealed, {
      path: '/ui/callback',
      maxAgeSeconds: LOGIN_TTL_SECONDS,
      secure: step.secure,
    }),
  });
}

async function callback(request: HttpRequest, deps: OidcUiDeps, step: Step): Promise<HttpResponse> {
  const pending = await openLogin(step.keys, readCookie(request.headers, LOGIN_COOKIE), step.now);
  if (pending === undefined)
    return loginPage(400, 'This sign-in has expired or was started in another browser. Start it again.');
  const error = request.query.error;
  if (error !== undefined) {
    const code = /^[a-z_]{1,64}$/.test(error) ? ` (${error})` : '';
    return loginPage(401, `The sign-in provider did not sign you in${code}.`);
  }
  if (!sameText(request.query.state ?? '', pending.state))
    return loginPage(401, 'This answer belongs to another sign-in. Start it again.');
  const expiresAt = new Date(step.now.getTime() + LOGIN_TTL_SECONDS * 1000);
  if (!(await deps.states.consume(pending.state, expiresAt)))
    return loginPage(401, 'This sign-in was already used. Start it again.');
  const callbackUrl = new URL(`${step.base}/ui/callback`);
  for (const [name, value] of Object.entries(request.query)) callbackUrl.searchParams.set(name, value);
  const claims = await deps.provider.exchange({
    callbackUrl,
    state: pending.state,
    nonce: pending.nonce,
    verifier: pending.verifier,
  });
  if (
    !isAllowed(deps.settings.allowed, {
      email: claims.email,
      email_verified: claims.email_verified,
      groups: claims.groups,
    })
  ) {
    deps.logger.info('sign-in not allowed', { subject: claims.sub });
    return loginPage(
      403,
      'You signed in, but this account is not in the list of people allowed here (OIDC_ALLOWED).',
    );
  }
  const session = await seal(
    step.keys.session,
    'session',
    {
      sub: claims.sub,
      ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
    },
    SESSION_TTL_SECONDS,
    step.now,
  );
  return redirect(pending.next, {
    'set-cookie': setCookie(SESSION_COOKIE, session, {
      path: '/ui',
      maxAgeSeconds: SESSION_TTL_SECONDS,
      secure: step.secure,
    }),
  });
}

/** The page asked for, with its query (`safeNextPath` refuses what could leave this site). */
function here(request: HttpRequest): string {
  const query = new URLSearchParams(request.query).toString();
  return safeNextPath(`${request.path}${query === '' ? '' : `?${query}`}`);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
