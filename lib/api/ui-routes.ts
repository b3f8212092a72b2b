import { randomBytes } from 'node:crypto';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { HttpRequest } from '../http/request.js';
import type { HttpResponse } from '../http/response.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import { APP_STATES, type AppState } from '../rollouts/state-model.js';
import { renderAppHistoryPage } from '../ui/app-history-page.js';
import { renderErrorPage } from '../ui/error-page.js';
import { escapeHtml } from '../ui/html.js';
import { renderRolloutPage } from '../ui/rollout-page.js';
import { renderRolloutsPage } from '../ui/rollouts-page.js';
import { sameSecret, UI_COOKIE, uiCookieValue } from './auth.js';
import type { RolloutIndex } from './rollout-index.js';
import { findRollout, listRollouts, NAME, pageOf } from './rollout-routes.js';

export interface UiDeps {
  readonly rollouts: RolloutReader;
  readonly index: RolloutIndex;
  readonly apiToken?: string;
  /** Argo CD UI base URL per cluster (fleet `argocdUrl`). */
  readonly argocdUrls?: () => Promise<Readonly<Record<string, string>>>;
  readonly now?: () => Date;
}

/** `GET /ui/` and `GET /ui/rollouts/{sha}`: server-rendered pages over the same records as the JSON API. */
export async function uiPage(
  rest: readonly string[],
  request: HttpRequest,
  deps: UiDeps,
): Promise<HttpResponse> {
  const nonce = randomBytes(16).toString('base64');
  const fragment = request.headers['x-ui-fragment'] === 'live';
  try {
    return page(200, await render(rest, request, deps, { nonce, fragment }), nonce);
  } catch (error) {
    // What the caller asked for is not there or not valid: a page saying so, not the API's JSON.
    if (error instanceof NotFoundError)
      return page(404, renderErrorPage(404, error.message, { nonce, fragment }), nonce);
    if (error instanceof BadRequestError)
      return page(400, renderErrorPage(400, error.message, { nonce, fragment }), nonce);
    throw error;
  }
}

async function render(
  rest: readonly string[],
  request: HttpRequest,
  deps: UiDeps,
  view: { readonly nonce: string; readonly fragment: boolean },
): Promise<string> {
  const now = deps.now?.() ?? new Date();
  if (rest.length === 0) {
    // The filter form sends `repo=` when left empty: that means every repository.
    const { repo, ...others } = request.query;
    const query = repo === undefined || repo.trim() === '' ? others : { ...others, repo: repo.trim() };
    const list = await listRollouts({ ...request, query }, deps.index);
    const next =
      list.cursor === undefined
        ? undefined
        : new URLSearchParams({ ...query, cursor: list.cursor }).toString();
    return renderRolloutsPage(list.items, {
      ...view,
      now,
      ...(next === undefined ? {} : { nextQuery: next }),
      ...(query.repo === undefined ? {} : { repo: query.repo }),
    });
  }
  if (rest[0] === 'rollouts' && rest.length === 2) {
    const rollout = await findRollout(rest[1] ?? '', deps);
    const [argocdUrls, decisions] = await Promise.all([
      deps.argocdUrls?.() ?? Promise.resolve({}),
      deps.rollouts.decisions(rollout.sha),
    ]);
    const state = stateFilter(request.query.state);
    return renderRolloutPage(rollout, {
      ...view,
      argocdUrls,
      now,
      decisions,
      ...(state === undefined ? {} : { state }),
    });
  }
  if (rest[0] === 'apps' && rest.length === 4) {
    const [, cluster = '', namespace = '', name = ''] = rest;
    for (const [field, value] of [
      ['cluster', cluster],
      ['namespace', namespace],
      ['name', name],
    ] as const) {
      if (!NAME.test(value)) throw new BadRequestError(`${field} must be a Kubernetes name`);
    }
    const page = pageOf(request);
    const [argocdUrls, result] = await Promise.all([
      deps.argocdUrls?.() ?? Promise.resolve({} as Readonly<Record<string, string>>),
      deps.rollouts.history({ cluster, namespace, name }, page),
    ]);
    const argocdUrl = argocdUrls[cluster];
    return renderAppHistoryPage({ cluster, namespace, name }, result.items, {
      ...view,
      now,
      ...(argocdUrl === undefined ? {} : { argocdUrl }),
      ...(result.nextCursor === undefined
        ? {}
        : { nextQuery: new URLSearchParams({ cursor: result.nextCursor }).toString() }),
    });
  }
  throw new NotFoundError(`no page at ${request.path}`);
}

/** `?state=failed`: one of the app states, or a 400 page naming them. */
function stateFilter(raw: string | undefined): AppState | undefined {
  if (raw === undefined || raw === '') return undefined;
  if ((APP_STATES as readonly string[]).includes(raw)) return raw as AppState;
  throw new BadRequestError(`state must be one of ${APP_STATES.join(', ')}`);
}

/**
 * `?token=<API_TOKEN>` once: checked in constant time, then swapped for an HttpOnly, SameSite=Strict
 * cookie and a redirect to the same page without the token (so it leaves the address bar and history).
 */
export function uiLogin(request: HttpRequest, apiToken: string | undefined): HttpResponse {
  const token = request.query.token ?? '';
  const { token: _token, ...rest } = request.query;
  const query = new URLSearchParams(rest).toString();
  // Rebuilt from its segments: `//host/...` must never become a redirect to another origin.
  const path = `/${request.path
    .split('/')
    .filter((part) => part !== '')
    .join('/')}`;
  const location = `${path}${query === '' ? '' : `?${query}`}`;
  if (apiToken === undefined)
    return { statusCode: 303, headers: { location, 'cache-control': 'no-store' }, body: '' };
  if (!sameSecret(token, apiToken))
    throw new UnauthorizedError('the token is not valid', { code: 'unauthorized' });
  const host = (request.headers.host ?? '').toLowerCase();
  const loopback = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
  const cookie = `${UI_COOKIE}=${uiCookieValue(apiToken)}; Path=/; HttpOnly; SameSite=Strict${loopback ? '' : '; Secure'}`;
  return {
    statusCode: 303,
    headers: {
      location,
      'set-cookie': cookie,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
    body: '',
  };
}

export function uiUnauthorized(): HttpResponse {
  const nonce = randomBytes(16).toString('base64');
  return page(
    401,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sign in · gitops-sync</title></head><body>
<h1>Not signed in</h1><p>This API needs its token. Open this page once as <code>${escapeHtml('/ui/?token=<API_TOKEN>')}</code>:
the token is swapped for a cookie and removed from the address.</p></body></html>`,
    nonce,
  );
}

/**
 * `UI_AUTH=iam` with no IAM principal on the request: the routes under `/ui` take no IAM authorizer at the
 * gateway (a browser cannot sign its requests), so the page refuses rather than open itself to anyone.
 */
export function uiIamRefused(): HttpResponse {
  const nonce = randomBytes(16).toString('base64');
  return page(
    403,
    renderErrorPage(
      403,
      'This page needs a login: deploy with UI_AUTH=oidc (see docs/login.md), or put the /ui routes back behind IAM auth and open them through a signing proxy.',
      { nonce },
    ),
    nonce,
  );
}

/** An HTML answer with the pages' headers (CSP under the response's nonce, no caching, no referrer). */
export const htmlPage = (statusCode: number, body: string, nonce: string): HttpResponse =>
  page(statusCode, body, nonce);

function page(statusCode: number, body: string, nonce: string): HttpResponse {
  return {
    statusCode,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // form-action 'self': the list page's repository filter is a GET form to itself.
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      vary: 'x-ui-fragment',
    },
    body,
  };
}
