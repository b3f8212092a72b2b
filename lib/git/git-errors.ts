import { AppError, UpstreamError } from '../errors.js';

interface IsomorphicGitError {
  readonly code?: string;
  readonly data?: { readonly statusCode?: number };
}

/**
 * Maps what isomorphic-git (or our transport) threw to an `UpstreamError` naming the repository by its
 * canonical key (no credentials) and saying whether a retry may help.
 */
export function toGitError(error: unknown, repoKey: string, action: string): AppError {
  if (error instanceof AppError) {
    if (error instanceof UpstreamError) {
      return new UpstreamError(`${action} ${repoKey}: ${error.message}`, {
        retryable: error.retryable,
        code: error.code,
        cause: error,
        ...(error.upstreamStatus === undefined ? {} : { upstreamStatus: error.upstreamStatus }),
      });
    }
    return error;
  }
  const { code, data } = (error ?? {}) as IsomorphicGitError;
  if (code === 'UserCanceledError') {
    return upstream(`${action} ${repoKey}: the credentials were refused`, false, 'git-auth', error, 401);
  }
  if (code === 'HttpError') return httpStatusError(data?.statusCode ?? 0, repoKey, action, error);
  return upstream(`${action} ${repoKey}: ${code ?? 'git error'}`, true, 'git', error, undefined);
}

/** A host's failing HTTP status, as `toGitError` words it. */
export function httpStatusError(
  status: number,
  repoKey: string,
  action: string,
  cause?: unknown,
): UpstreamError {
  if (status === 401 || status === 403) {
    return upstream(
      `${action} ${repoKey}: authentication required (HTTP ${status})`,
      false,
      'git-auth',
      cause,
      status,
    );
  }
  if (status === 404)
    return upstream(`${action} ${repoKey}: repository not found`, false, 'git-not-found', cause, 404);
  if (status >= 300 && status < 400) {
    return upstream(
      `${action} ${repoKey}: the host redirects (HTTP ${status}); list the final URL in the fleet file`,
      false,
      'git-redirect',
      cause,
      status,
    );
  }
  return upstream(
    `${action} ${repoKey}: HTTP ${status}`,
    status === 429 || status >= 500,
    'git-http',
    cause,
    status,
  );
}

function upstream(
  message: string,
  retryable: boolean,
  code: string,
  cause: unknown,
  status: number | undefined,
): UpstreamError {
  return new UpstreamError(message, {
    retryable,
    code,
    cause,
    ...(status === undefined ? {} : { upstreamStatus: status }),
  });
}
