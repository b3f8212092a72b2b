/** The person's session (`/ui`), and the login in flight (sent back to `/ui/callback` only). */
export const SESSION_COOKIE = 'gitops_sync_session';
export const LOGIN_COOKIE = 'gitops_sync_login';

export function readCookie(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

export interface CookieOptions {
  readonly path: string;
  readonly maxAgeSeconds: number;
  /** False only when the page is served over plain http on loopback. */
  readonly secure: boolean;
}

/** HttpOnly and SameSite=Lax: the provider's redirect back is a top-level GET, which Lax lets through. */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearCookie(name: string, options: Omit<CookieOptions, 'maxAgeSeconds'>): string {
  return setCookie(name, '', { ...options, maxAgeSeconds: 0 });
}
