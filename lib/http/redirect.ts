/**
 * No credential ever follows a redirect: every client that sends one asks for redirects manually and
 * treats a 3xx as this error. It names where the redirect led (origin only: a Location may carry a
 * token in its query) so an operator can list the final URL, and never the credential.
 */
export class RedirectRefusedError extends Error {
  constructor(
    readonly status: number,
    /** `https://host:port` of the Location, or `(no location)`. */
    readonly target: string,
  ) {
    super(`redirect (HTTP ${status}) to ${target} not followed: credentials are never sent on a redirect`);
    this.name = 'RedirectRefusedError';
  }
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/** The origin a `Location` header points at, resolved against the request URL. */
export function redirectTarget(location: string | null | undefined, requestUrl: string): string {
  if (!location) return '(no location)';
  try {
    return new URL(location, requestUrl).origin;
  } catch {
    return '(unparsable location)';
  }
}
