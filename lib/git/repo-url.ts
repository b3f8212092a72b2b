import { AppError } from '../errors.js';
import { memoizeString } from '../string-memo.js';

/** A repository URL that is not in the fleet file's `repositories[]`; nothing is fetched. */
export class RepoNotAllowedError extends AppError {
  readonly repoUrl: string;

  constructor(repoUrl: string) {
    super(`repository ${repoUrl} is not listed in the fleet file's repositories; it is never fetched`, {
      code: 'repo-not-allowed',
    });
    this.repoUrl = repoUrl;
  }
}

/** A URL that cannot be read over smart HTTP (not http/https, or not a URL at all). */
export class RepoUrlError extends AppError {
  constructor(message: string) {
    super(message, { code: 'repo-url' });
  }
}

/**
 * The allow-list key of a repository URL: scheme, lower-case host (with a non-default port), path without
 * a trailing `/` or `.git`. User info, query and fragment are dropped, so credentials never reach a key,
 * a log line or an error. `undefined` when the URL is not http(s).
 */
export const canonicalRepoUrl: (url: string) => string | undefined = memoizeString(repoUrlKeyOf);

function repoUrlKeyOf(url: string): string | undefined {
  const parsed = parseHttpUrl(url);
  if (parsed === undefined) return undefined;
  const path = parsed.pathname
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/, '');
  return `${parsed.protocol}//${parsed.host}${path}`;
}

/** The URL to fetch: as listed, minus user info, query, fragment and trailing slashes. */
export function fetchableRepoUrl(url: string): string {
  const parsed = parseHttpUrl(url);
  if (parsed === undefined) throw new RepoUrlError('only http(s) repository URLs can be read');
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
}

export interface RepoAllowList {
  allows(url: string): boolean;
  /** The canonical key of `url`, or a `RepoNotAllowedError` / `RepoUrlError`. */
  check(url: string): string;
}

/** The fleet file's `repositories[].url` values: the only repositories the orchestrator reads. */
export function createRepoAllowList(urls: readonly string[]): RepoAllowList {
  const keys = new Set(urls.map(canonicalRepoUrl).filter((key) => key !== undefined));
  return {
    allows: (url) => {
      const key = canonicalRepoUrl(url);
      return key !== undefined && keys.has(key);
    },
    check: (url) => {
      const key = canonicalRepoUrl(url);
      if (key === undefined) throw new RepoUrlError('only http(s) repository URLs can be read');
      if (!keys.has(key)) throw new RepoNotAllowedError(key);
      return key;
    },
  };
}

function parseHttpUrl(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.hostname === '') return undefined;
  return parsed;
}
