import type { Node } from 'yaml';
import { statusTarget, statusTargetProblem } from '../commit-status/status-target.js';
import { deploymentTargetProblem } from '../deployments/deployment-request.js';
import { type IdChecks, LITERAL_TOKEN, plainHttp } from './deploy-checks.js';
import { httpUrl, noWhitespace, repositoryUrl, slackChannelName } from './fleet-checks.js';
import { REPOSITORY_CONTROLS, REPOSITORY_PROVIDERS, type RepositoryConfig } from './fleet-config.js';
import type { YamlReader } from './yaml-reader.js';

const REPOSITORY_KEYS = [
  'url',
  'tokenSecret',
  'token',
  'provider',
  'apiUrl',
  'slackChannel',
  'commitStatus',
  'commitStatusPerCluster',
  'deployments',
  'control',
  'checkRun',
] as const;

/** One entry of `repositories`: its credentials, host and the feedback it asks for (statuses, deployments, check runs). */
export function repository(
  reader: YamlReader,
  node: Node | null,
  path: string,
  ids: IdChecks,
  hasGitHubApp: boolean,
): RepositoryConfig {
  const fields = reader.fields(node, path, REPOSITORY_KEYS);
  const url = fields.requiredString('url', repositoryUrl);
  fields.localOnly('url', plainHttp(url));
  if (fields.has('token') && fields.has('tokenSecret'))
    fields.fail('token', 'and tokenSecret are exclusive; set one');
  fields.localOnly('token', LITERAL_TOKEN);
  const token = fields.string('token', noWhitespace);
  const tokenSecret = fields.string('tokenSecret', ids.secret);
  const provider = fields.oneOf('provider', REPOSITORY_PROVIDERS);
  const apiUrl = fields.string('apiUrl', httpUrl('API URL'));
  const slackChannel = fields.string('slackChannel', slackChannelName);
  const commitStatus = fields.boolean('commitStatus');
  const commitStatusPerCluster = fields.boolean('commitStatusPerCluster');
  const control = fields.oneOf('control', REPOSITORY_CONTROLS);
  fields.localOnly('apiUrl', plainHttp(apiUrl));
  // A URL that is itself wrong is reported once, as the url's problem.
  const urlValid = repositoryUrl(url) === undefined;
  const host = {
    url,
    ...(provider === undefined ? {} : { provider }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
  };
  const noStatus = commitStatus === true && urlValid ? statusTargetProblem(host) : undefined;
  if (noStatus !== undefined) fields.fail('commitStatus', noStatus);
  const deployments = fields.boolean('deployments');
  const noDeployments = deployments === true && urlValid ? deploymentTargetProblem(host) : undefined;
  if (noDeployments !== undefined) fields.fail('deployments', noDeployments);
  const checkRun = fields.boolean('checkRun');
  if (checkRun === true) {
    const problem = hasGitHubApp
      ? githubProblem(url, provider, apiUrl)
      : 'needs a top-level githubApp (appId, privateKeySecret): check runs are posted as a GitHub App';
    if (problem !== undefined) fields.fail('checkRun', problem);
  }
  return {
    url,
    ...(tokenSecret === undefined ? {} : { tokenSecret }),
    ...(token === undefined ? {} : { token }),
    ...(provider === undefined ? {} : { provider }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
    ...(commitStatus === undefined ? {} : { commitStatus }),
    ...(commitStatusPerCluster === undefined ? {} : { commitStatusPerCluster }),
    ...(deployments === undefined ? {} : { deployments }),
    ...(slackChannel === undefined ? {} : { slackChannel }),
    ...(control === undefined ? {} : { control }),
    ...(checkRun === undefined ? {} : { checkRun }),
  };
}

/** Why `checkRun: true` cannot work for this repository: it must be on GitHub (github.com or Enterprise). */
function githubProblem(
  url: string,
  provider: RepositoryConfig['provider'],
  apiUrl: string | undefined,
): string | undefined {
  if (repositoryUrl(url) !== undefined) return undefined; // reported as the url's problem
  const source = {
    url,
    ...(provider === undefined ? {} : { provider }),
    ...(apiUrl === undefined ? {} : { apiUrl }),
  };
  const located = statusTarget(source, 'owner/repo');
  if (located?.host === 'github') return undefined;
  return (
    statusTargetProblem(source) ?? 'is only for GitHub repositories (set provider: github for Enterprise)'
  );
}

/** Enough to catch the same repository listed twice; matching uses its own canonical keys. */
export function repoKey(url: string): string {
  return url
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/^https?:\/\//, '');
}
