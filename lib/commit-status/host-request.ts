import type { GitCredentials } from '../git/credentials.js';
import type { CommitPhase, PlannedStatus } from './plan.js';
import type { StatusHost, StatusTarget } from './status-target.js';

export interface StatusRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

type States = Readonly<Record<CommitPhase, string>>;

const GITHUB_STATE: States = {
  pending: 'pending',
  running: 'pending',
  success: 'success',
  failure: 'failure',
};
const GITLAB_STATE: States = {
  pending: 'pending',
  running: 'running',
  success: 'success',
  failure: 'failed',
};
const BITBUCKET_STATE: States = {
  pending: 'INPROGRESS',
  running: 'INPROGRESS',
  success: 'SUCCESSFUL',
  failure: 'FAILED',
};
const AZURE_STATE: States = {
  pending: 'pending',
  running: 'pending',
  success: 'succeeded',
  failure: 'failed',
};

const STATES: Readonly<Record<StatusHost, States>> = {
  github: GITHUB_STATE,
  gitlab: GITLAB_STATE,
  bitbucket: BITBUCKET_STATE,
  'bitbucket-server': BITBUCKET_STATE,
  'azure-devops': AZURE_STATE,
  gitea: GITHUB_STATE,
};

/**
 * The longest description each host keeps. GitHub refuses more than 140 (422); Bitbucket Server's build
 * status columns hold 255; the others document none, so 255 guards them. The plan already cuts at 140.
 */
const MAX_DESCRIPTION: Readonly<Record<StatusHost, number>> = {
  github: 140,
  gitlab: 255,
  bitbucket: 255,
  'bitbucket-server': 255,
  'azure-devops': 255,
  gitea: 255,
};

/** The state name this host will hold: what "already posted" is compared on. */
export function hostState(host: StatusHost, phase: CommitPhase): string {
  return STATES[host][phase];
}

/** Cut to the host's limit, on a code point boundary, marking the cut. */
export function fitDescription(host: StatusHost, description: string): string {
  const max = MAX_DESCRIPTION[host];
  const points = [...description];
  return points.length <= max ? description : `${points.slice(0, max - 1).join('')}…`;
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'User-Agent': 'gitops-sync-orchestrator' };

/** One host API call for one status. The token goes in a header only; never in the URL. */
export function statusRequest(
  target: StatusTarget,
  sha: string,
  status: PlannedStatus,
  credentials: GitCredentials,
  fallbackUrl: string,
): StatusRequest {
  const secret = 'token' in credentials ? credentials.token : credentials.password;
  const state = hostState(target.host, status.phase);
  const description = fitDescription(target.host, status.description);
  const link = status.targetUrl;
  const post = (url: string, authorization: Record<string, string>, body: unknown): StatusRequest => ({
    url,
    headers: { ...JSON_HEADERS, ...authorization },
    body: JSON.stringify(body),
  });
  const [owner, name] = splitRepository(target.repository);
  switch (target.host) {
    case 'github':
      return post(
        `${target.apiBaseUrl}/repos/${target.repository}/statuses/${sha}`,
        {
          Accept: 'application/vnd.github+json',
          'X-GitHub-Api-Version': '2022-11-28',
          Authorization: `Bearer ${secret}`,
        },
        { state, context: status.context, description, ...(link === undefined ? {} : { target_url: link }) },
      );
    case 'gitlab':
      return post(
        `${target.apiBaseUrl}/projects/${encodeURIComponent(target.repository)}/statuses/${sha}`,
        { 'PRIVATE-TOKEN': secret },
        { state, name: status.context, description, ...(link === undefined ? {} : { target_url: link }) },
      );
    case 'bitbucket':
      // Bitbucket requires a URL: the rollout page, else the commit or repository page.
      return post(
        `${target.apiBaseUrl}/2.0/repositories/${target.repository}/commit/${sha}/statuses/build`,
        { Authorization: basicWithUser(credentials) ?? `Bearer ${secret}` },
        { key: status.context, name: status.context, state, description, url: link ?? fallbackUrl },
      );
    case 'bitbucket-server':
      // The commit-level build status API: every version from 4.x to today's Data Center (see docs).
      return post(
        `${target.apiBaseUrl}/rest/build-status/1.0/commits/${sha}`,
        { Authorization: basicWithUser(credentials) ?? `Bearer ${secret}` },
        { state, key: status.context, name: status.context, url: link ?? fallbackUrl, description },
      );
    case 'azure-devops':
      // A PAT goes as the password of basic auth with an empty user name.
      return post(
        `${target.apiBaseUrl}/${encodeURIComponent(owner)}/_apis/git/repositories/${encodeURIComponent(name)}/commits/${sha}/statuses?api-version=7.1`,
        { Authorization: basicWithUser(credentials) ?? basic('', secret) },
        {
          state,
          description,
          ...(link === undefined ? {} : { targetUrl: link }),
          context: { name: status.context, genre: 'gitops' },
        },
      );
    case 'gitea':
      return post(
        `${target.apiBaseUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/statuses/${sha}`,
        {
          Authorization:
            'password' in credentials
              ? basic(credentials.username, credentials.password)
              : `token ${credentials.token}`,
        },
        { state, context: status.context, description, ...(link === undefined ? {} : { target_url: link }) },
      );
  }
}

/** Basic auth when the secret names a user (`{"username","password"}` or `{"token","username"}`). */
function basicWithUser(credentials: GitCredentials): string | undefined {
  if ('password' in credentials) return basic(credentials.username, credentials.password);
  return credentials.username === undefined ? undefined : basic(credentials.username, credentials.token);
}

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** `project/repo` or `owner/repo`: the last segment is the repository, the rest its owner. */
function splitRepository(repository: string): [string, string] {
  const at = repository.lastIndexOf('/');
  return [repository.slice(0, at), repository.slice(at + 1)];
}
