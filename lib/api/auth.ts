import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** The rollout page's session cookie: set once from `/ui/...?token=`, sent by the browser after that. */
export const UI_COOKIE = 'gitops_sync_ui';

/** The cookie holds a value derived from the token, never the token itself. */
export function uiCookieValue(apiToken: string): string {
  return createHmac('sha256', apiToken).update('gitops-sync ui session v1').digest('base64url');
}

export function sameSecret(candidate: string, expected: string): boolean {
  return timingSafeEqual(digest(candidate), digest(expected));
}

function cookie(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * `Authorization: Bearer <API_TOKEN>` (or the page's cookie) when a token is configured; compared in
 * constant time.
 */
export function requireBearer(headers: Readonly<Record<string, string>>, apiToken: string | undefined): void {
  if (apiToken === undefined) return;
  const header = headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match?.[1] !== undefined && sameSecret(match[1], apiToken)) return;
  const session = cookie(headers, UI_COOKIE);
  if (session !== undefined && sameSecret(session, uiCookieValue(apiToken))) return;
  throw new UnauthorizedError('a valid bearer token is required', { code: 'unauthorized' });
}

/**
 * The control routes: the `Authorization` header only, never the page's cookie (a browser sends a cookie
 * with a request another site makes it send; it never adds this header by itself).
 */
export function requireBearerHeader(
  headers: Readonly<Record<string, string>>,
  apiToken: string | undefined,
): void {
  if (apiToken === undefined) return;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (match?.[1] !== undefined && sameSecret(match[1], apiToken)) return;
  throw new UnauthorizedError('a valid bearer token is required', { code: 'unauthorized' });
}
