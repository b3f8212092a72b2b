import { randomBytes } from 'node:crypto';
import { htmlPage } from '../api/ui-routes.js';
import type { HttpResponse } from '../http/response.js';
import { html } from '../ui/html.js';
import { renderPage } from '../ui/layout.js';

const TITLES: Readonly<Record<number, string>> = {
  200: 'Signed out',
  400: 'Sign-in expired',
  401: 'Not signed in',
  403: 'Not allowed',
  503: 'Sign-in unavailable',
};

/** The login's own answers, as pages: what happened and a way to start again. */
export function loginPage(
  statusCode: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): HttpResponse {
  const nonce = randomBytes(16).toString('base64');
  const title = TITLES[statusCode] ?? 'Error';
  const body = renderPage({
    title: `${title} · gitops-sync`,
    nonce,
    running: false,
    body: html`<h1 data-login="${statusCode}">${title}</h1><p>${message}</p><p><a href="/ui/login">Sign in</a></p>`,
  });
  const response = htmlPage(statusCode, body, nonce);
  return { ...response, headers: { ...response.headers, ...headers } };
}

export function redirect(location: string, headers: Readonly<Record<string, string>> = {}): HttpResponse {
  return {
    statusCode: 302,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers },
    body: '',
  };
}
