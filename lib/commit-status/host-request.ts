import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { CommitPhase, PlannedStatus } from './plan.js';

export const STATUS_HOSTS = ['github', 'gitlab', 'bitbucket'] as const;
export type StatusHost = (typeof STATUS_HOSTS)[number];

export interface StatusTarget {
  readonly host: StatusHost;
  readonly apiBaseUrl: string;
  /** `owner/repo`, a GitLab project path (`group/sub/project`), or a Bitbucket `workspace/repo`. */
  readonly repository: string;
}

export interface StatusRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Where a repository's commit statuses go, from the fleet file only (never from a payload): the host is
 * the repository's `provider` or guessed from its URL; `apiUrl` overrides the API base (Enterprise, tests).
 * `hostName` (the rollout's `org/repo`) serves only when the URL's path names no owner.
 */
export function statusTarget(
  repo: Pick<RepositoryConfig, 'url' | 'provider' | 'apiUrl'>,
  hostName?: string,
): StatusTarget | undefined {
  let url: URL;
  try {
    url = new URL(repo.url);
  } catch {
    return undefined;
  }
  const hostname = url.hostname.toLowerCase();
  const given = repo.provider as string | undefined;
  const host: StatusHost | undefined =
    STATUS_HOSTS.find((h) => h === given) ??
    (given === undefined
      ? hostname === 'github.com'
        ? 'github'
        : hostname === 'bitbucket.org'
          ? 'bitbucket'
          : hostname.includes('gitlab')
            ? 'gitlab'
            : undefined
      : undefined);
  if (host === undefined) return undefined;
  const path = url.pathname
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '');
  // A clone URL without an owner (a mirror, the local Git server) posts under the host's own name for it.
  const repository = path.includes('/') ? path : hostName;
  const segments = repository?.split('/') ?? [];
  if (segments.length < 2 || segments.some((s) => !/^[\w.-]+$/.test(s) || /^\.+$/.test(s))) return undefined;
  const apiBaseUrl = (repo.apiUrl ?? defaultApi(host, hostname, url.origin)).replace(/\/+$/, '');
  return { host, apiBaseUrl, repository: segments.join('/') };
}

function defaultApi(host: StatusHost, hostname: string, origin: string): string {
  if (host === 'github') return hostname === 'github.com' ? 'https://api.github.com' : `${origin}/api/v3`;
  if (host === 'bitbucket') return 'https://api.bitbucket.org';
  return `${origin}/api/v4`;
}

const GITHUB_STATE: Record<CommitPhase, string> = {
  pending: 'pending',
  running: 'pending',
  success: 'success',
  failure: 'failure',
};
const GITLAB_STATE: Record<CommitPhase, string> = {
  pending: 'pending',
  running: 'running',
  success: 'success',
  failure: 'failed',
};
const BITBUCKET_STATE: Record<CommitPhase, string> = {
  pending: 'INPROGRESS',
  running: 'INPROGRESS',
  success: 'SUCCESSFUL',
  failure: 'FAILED',
};

/** The state name this host will hold: what "already posted" is compared on. */
export function hostState(host: StatusHost, phase: CommitPhase): string {
  return (host === 'github' ? GITHUB_STATE : host === 'gitlab' ? GITLAB_STATE : BITBUCKET_STATE)[phase];
}

/** One host API call for one status. The token goes in a header only; never in the URL. */
export function statusRequest(
  target: StatusTarget,
  sha: string,
  status: PlannedStatus,
  credentials: GitCredentials,
  fallbackUrl: string,
): StatusRequest {
  const json = { 'Content-Type': 'application/json', 'User-Agent': 'gitops-sync-orchestrator' };
  const secret = 'token' in credentials ? credentials.token : credentials.password;
  const state = hostState(target.host, status.phase);
  if (target.host === 'github') {
    return {
      url: `${target.apiBaseUrl}/repos/${target.repository}/statuses/${sha}`,
      headers: {
        ...json,
        Accept: 'application/vnd.github+json',
        'X-GitHub-Api-Version': '2022-11-28',
        Authorization: `Bearer ${secret}`,
      },
      body: JSON.stringify({
        state,
        context: status.context,
        description: status.description,
        ...(status.targetUrl === undefined ? {} : { target_url: status.targetUrl }),
      }),
    };
  }
  if (target.host === 'gitlab') {
    return {
      url: `${target.apiBaseUrl}/projects/${encodeURIComponent(target.repository)}/statuses/${sha}`,
      headers: { ...json, 'PRIVATE-TOKEN': secret },
      body: JSON.stringify({
        state,
        name: status.context,
        description: status.description,
        ...(status.targetUrl === undefined ? {} : { target_url: status.targetUrl }),
      }),
    };
  }
  const authorization =
    'username' in credentials && 'password' in credentials
      ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
      : `Bearer ${secret}`;
  return {
    url: `${target.apiBaseUrl}/2.0/repositories/${target.repository}/commit/${sha}/statuses/build`,
    headers: { ...json, Authorization: authorization },
    // Bitbucket requires a URL: the rollout page, else the commit or repository page.
    body: JSON.stringify({
      key: status.context,
      name: status.context,
      state,
      description: status.description,
      url: status.targetUrl ?? fallbackUrl,
    }),
  };
}
