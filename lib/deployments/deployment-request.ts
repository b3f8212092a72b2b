import { fitDescription } from '../commit-status/host-request.js';
import { type StatusTarget, statusTarget, statusTargetProblem } from '../commit-status/status-target.js';
import type { RepositoryConfig } from '../fleet/fleet-config.js';
import type { GitCredentials } from '../git/credentials.js';
import type { DeploymentPhase, PlannedDeployment } from './plan.js';

/** The hosts with a deployments API. */
export const DEPLOYMENT_HOSTS = ['github', 'gitlab'] as const;
export type DeploymentHost = (typeof DEPLOYMENT_HOSTS)[number];

export interface DeploymentTarget extends StatusTarget {
  readonly host: DeploymentHost;
}

export interface HostRequest {
  readonly method: 'POST' | 'PUT';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

type TargetSource = Pick<RepositoryConfig, 'url' | 'provider' | 'apiUrl'>;

/** Where a repository's deployments go: the commit status API's base and path, on GitHub or GitLab only. */
export function deploymentTarget(repo: TargetSource, hostName?: string): DeploymentTarget | undefined {
  const target = statusTarget(repo, hostName);
  if (target?.host !== 'github' && target?.host !== 'gitlab') return undefined;
  return { ...target, host: target.host };
}

/** Why `deployments: true` cannot work for this repository (for `validate` and cold start), or undefined. */
export function deploymentTargetProblem(repo: TargetSource): string | undefined {
  const problem = statusTargetProblem(repo);
  if (problem !== undefined) return problem;
  const target = statusTarget(repo, 'owner/repo');
  return target?.host === 'github' || target?.host === 'gitlab'
    ? undefined
    : `is not possible on ${target?.host ?? 'this host'} (deployments exist on GitHub and GitLab only)`;
}

const GITHUB_STATE: Readonly<Record<DeploymentPhase, string>> = {
  in_progress: 'in_progress',
  success: 'success',
  failure: 'failure',
  error: 'error',
  inactive: 'inactive',
  aborted: 'error',
};
const GITLAB_STATE: Readonly<Record<DeploymentPhase, string>> = {
  in_progress: 'running',
  success: 'success',
  failure: 'failed',
  error: 'failed',
  inactive: 'canceled',
  aborted: 'canceled',
};

/** The state name the host will show: what "already posted" is compared on. */
export function deploymentState(host: DeploymentHost, phase: DeploymentPhase): string {
  return (host === 'github' ? GITHUB_STATE : GITLAB_STATE)[phase];
}

/** What a deployment shows right after it was created: GitHub's has no status yet, GitLab's is running. */
export function createdState(host: DeploymentHost): string {
  return host === 'github' ? 'pending' : 'running';
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'User-Agent': 'gitops-sync-orchestrator' };

function authorization(host: DeploymentHost, credentials: GitCredentials): Record<string, string> {
  const secret = 'token' in credentials ? credentials.token : credentials.password;
  return host === 'github'
    ? {
        Accept: 'application/vnd.github+json',
        'X-GitHub-Api-Version': '2022-11-28',
        Authorization: `Bearer ${secret}`,
      }
    : { 'PRIVATE-TOKEN': secret };
}

function request(
  method: HostRequest['method'],
  url: string,
  host: DeploymentHost,
  credentials: GitCredentials,
  body: unknown,
): HostRequest {
  return {
    method,
    url,
    headers: { ...JSON_HEADERS, ...authorization(host, credentials) },
    body: JSON.stringify(body),
  };
}

function project(target: DeploymentTarget): string {
  return `${target.apiBaseUrl}/projects/${encodeURIComponent(target.repository)}`;
}

/** The commit being deployed: its SHA, and for GitLab the branch or tag it came on. */
export interface DeployedCommit {
  readonly sha: string;
  /** `refs/heads/main`, `refs/tags/v1.2.0` or a bare name. */
  readonly ref: string;
}

/** Creates the deployment of one environment. The token goes in a header only; never in the URL. */
export function createDeploymentRequest(
  target: DeploymentTarget,
  commit: DeployedCommit,
  planned: PlannedDeployment,
  credentials: GitCredentials,
): HostRequest {
  if (target.host === 'github')
    return request(
      'POST',
      `${target.apiBaseUrl}/repos/${target.repository}/deployments`,
      'github',
      credentials,
      {
        ref: commit.sha,
        environment: planned.environment,
        auto_merge: false,
        required_contexts: [],
        production_environment: planned.production,
        transient_environment: false,
        description: fitDescription('github', `gitops-sync to ${planned.clusters.join(', ')}`),
      },
    );
  const tag = commit.ref.startsWith('refs/tags/');
  return request('POST', `${project(target)}/deployments`, 'gitlab', credentials, {
    environment: planned.environment,
    sha: commit.sha,
    ref: commit.ref.replace(/^refs\/(heads|tags)\//, ''),
    tag,
    status: 'running',
  });
}

/** Moves a deployment to the planned phase: a GitHub deployment status, a GitLab status update. */
export function deploymentStatusRequest(
  target: DeploymentTarget,
  deploymentId: string,
  planned: PlannedDeployment,
  credentials: GitCredentials,
  pageUrl: string | undefined,
): HostRequest {
  const state = deploymentState(target.host, planned.phase);
  if (target.host === 'gitlab')
    return request(
      'PUT',
      `${project(target)}/deployments/${encodeURIComponent(deploymentId)}`,
      'gitlab',
      credentials,
      {
        status: state,
      },
    );
  const links = pageUrl === undefined ? {} : { environment_url: pageUrl, log_url: pageUrl };
  return request(
    'POST',
    `${target.apiBaseUrl}/repos/${target.repository}/deployments/${encodeURIComponent(deploymentId)}/statuses`,
    'github',
    credentials,
    { state, description: fitDescription('github', planned.description), ...links },
  );
}

/** The `id` of a created deployment (a number on both hosts), as text. */
export function deploymentIdOf(answer: unknown): string | undefined {
  const id = (answer as { id?: unknown } | null)?.id;
  return typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : undefined;
}
