import type { RepositoryConfig } from '../fleet/fleet-config.js';
import { compareTarget } from '../git/compare-target.js';

export const STATUS_HOSTS = [
  'github',
  'gitlab',
  'bitbucket',
  'bitbucket-server',
  'azure-devops',
  'gitea',
] as const;
export type StatusHost = (typeof STATUS_HOSTS)[number];

export interface StatusTarget {
  readonly host: StatusHost;
  /**
   * GitHub, GitLab, Gitea: the REST API root; Bitbucket Cloud: `https://api.bitbucket.org`; Bitbucket
   * Server: the server's base URL (context path included); Azure DevOps: the collection URL.
   */
  readonly apiBaseUrl: string;
  /**
   * `owner/repo`, a GitLab project path (`group/sub/project`), a Bitbucket `workspace/repo` or Server
   * `PROJECT/repo`, an Azure DevOps `project/repo`.
   */
  readonly repository: string;
}

type TargetSource = Pick<RepositoryConfig, 'url' | 'provider' | 'apiUrl'>;

/**
 * Where a repository's commit statuses go, from the fleet file only (never from a payload): the host is
 * the repository's `provider` or guessed from its URL; `apiUrl` overrides the API base (Enterprise, tests).
 * `hostName` (the rollout's `org/repo`) serves only when the URL's path names no owner.
 */
export function statusTarget(repo: TargetSource, hostName?: string): StatusTarget | undefined {
  return locate(repo, hostName).target;
}

/**
 * Why `commitStatus: true` cannot work for this repository (for `validate` and cold start), or undefined.
 * The URL may name no owner (a mirror): the rollout's repository name stands in then, as when posting.
 */
export function statusTargetProblem(repo: TargetSource): string | undefined {
  return locate(repo, 'owner/repo').problem;
}

const HOSTS_LIST = STATUS_HOSTS.join(', ');

function locate(
  repo: TargetSource,
  hostName: string | undefined,
): { target?: StatusTarget; problem?: string } {
  let url: URL;
  try {
    url = new URL(repo.url);
  } catch {
    return { problem: 'needs a repository URL that parses' };
  }
  const hostname = url.hostname.toLowerCase();
  const given = repo.provider;
  if (given === 'generic')
    return { problem: `is not possible with provider generic (statuses go to ${HOSTS_LIST})` };
  const path = url.pathname
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '');
  if (given === 'gitea') return owned('gitea', giteaTarget(url, path, repo.apiUrl), hostName);
  const guessed =
    given ??
    (hostname === 'github.com'
      ? 'github'
      : hostname === 'bitbucket.org'
        ? 'bitbucket'
        : hostname.includes('gitlab')
          ? 'gitlab'
          : undefined);
  if (guessed === 'github' || guessed === 'gitlab' || guessed === 'bitbucket') {
    const apiBaseUrl = repo.apiUrl ?? defaultApi(guessed, hostname, url.origin);
    return owned(guessed, { apiBaseUrl, repository: path }, hostName);
  }
  // Bitbucket Server and Azure DevOps: the same bases as the compare API (`/scm/` clone paths, collections).
  const located = compareTarget({
    url: repo.url,
    ...(given === undefined ? {} : { provider: given }),
    ...(repo.apiUrl === undefined ? {} : { apiUrl: repo.apiUrl }),
  });
  if (located?.provider === 'bitbucket-server' || located?.provider === 'azure-devops') {
    return owned(located.provider, located, undefined, located.provider === 'azure-devops');
  }
  if (given === 'azure-devops')
    return { problem: 'needs an Azure DevOps URL naming the repository (…/{project}/_git/{repo})' };
  if (given === 'bitbucket-server')
    return { problem: 'needs a Bitbucket Server clone URL (…/scm/{PROJECT}/{repo}.git)' };
  return {
    problem: `cannot tell the Git host from ${hostname}: set provider (statuses go to ${HOSTS_LIST})`,
  };
}

/** The target when its repository path is a safe `owner/name…`, else the problem. */
function owned(
  host: StatusHost,
  found: { readonly apiBaseUrl: string; readonly repository: string },
  hostName: string | undefined,
  /** Azure DevOps project names may hold spaces and more: only path tricks are refused (they are encoded). */
  loose = false,
): { target?: StatusTarget; problem?: string } {
  // A clone URL without an owner (a mirror, the local Git server) posts under the host's own name for it.
  const repository = found.repository.includes('/') ? found.repository : hostName;
  const segments = repository?.split('/') ?? [];
  const unsafe = (s: string) =>
    /^\.+$/.test(s) || (loose ? [...s].some((c) => c.charCodeAt(0) < 0x20) : !/^[\w.-]+$/.test(s));
  if (segments.length < 2 || segments.some((s) => s === '' || unsafe(s)))
    return { problem: 'needs a repository URL naming the owner and the repository' };
  const apiBaseUrl = found.apiBaseUrl.replace(/\/+$/, '');
  return { target: { host, apiBaseUrl, repository: segments.join('/') } };
}

function defaultApi(host: 'github' | 'gitlab' | 'bitbucket', hostname: string, origin: string): string {
  if (host === 'github') return hostname === 'github.com' ? 'https://api.github.com' : `${origin}/api/v3`;
  if (host === 'bitbucket') return 'https://api.bitbucket.org';
  return `${origin}/api/v4`;
}

/**
 * Gitea and Forgejo repositories are always `owner/repo`, the last two path segments; what comes before
 * is the instance's sub-path (`https://host/git/owner/repo` → `https://host/git/api/v1`).
 */
function giteaTarget(
  url: URL,
  path: string,
  apiUrl: string | undefined,
): { apiBaseUrl: string; repository: string } {
  const segments = path === '' ? [] : path.split('/');
  const repository = segments.slice(-2).join('/');
  const prefix = segments.length > 2 ? `/${segments.slice(0, -2).join('/')}` : '';
  return { apiBaseUrl: apiUrl ?? `${url.origin}${prefix}/api/v1`, repository };
}
