import type { RepositoryProvider } from '../fleet/fleet-config.js';
import type { CompareProvider, CompareRequest } from './compare-model.js';

export interface CompareSource {
  /** The fleet file's repository URL. */
  readonly url: string;
  readonly provider?: RepositoryProvider;
  /** The fleet file's `apiUrl`: GitHub Enterprise, self-hosted GitLab (with a relative URL root), tests. */
  readonly apiUrl?: string;
}

export type CompareTarget = Pick<CompareRequest, 'provider' | 'apiBaseUrl' | 'repository'>;

const SERVER_CLONE = /^(.*?)\/scm\/([^/]+)\/([^/]+)$/;

/**
 * Where to ask for a comparison, from the fleet file only (a token is never sent to a host taken from a
 * payload). The provider is guessed from the host (or Bitbucket Server's `/scm/` path) when not given;
 * Gitea, `generic` or an unknown host: none, and fan-out fails open.
 */
export function compareTarget(source: CompareSource): CompareTarget | undefined {
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    return undefined;
  }
  const path = url.pathname
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '');
  const provider = source.provider ?? guessProvider(url.hostname.toLowerCase(), path);
  if (provider === undefined || provider === 'generic' || provider === 'gitea') return undefined;
  const located = locate(provider, url, path);
  if (located === undefined || !located.repository.includes('/')) return undefined;
  return { provider, apiBaseUrl: source.apiUrl ?? located.apiBaseUrl, repository: located.repository };
}

function guessProvider(host: string, path: string): RepositoryProvider | undefined {
  if (host === 'github.com') return 'github';
  if (host === 'bitbucket.org') return 'bitbucket';
  if (host === 'dev.azure.com' || host.endsWith('.visualstudio.com')) return 'azure-devops';
  if (host.includes('gitlab')) return 'gitlab';
  if (SERVER_CLONE.test(`/${path}`)) return 'bitbucket-server';
  return undefined;
}

function locate(
  provider: CompareProvider,
  url: URL,
  path: string,
): { apiBaseUrl: string; repository: string } | undefined {
  const host = url.hostname.toLowerCase();
  switch (provider) {
    case 'github':
      return {
        apiBaseUrl: host === 'github.com' ? 'https://api.github.com' : `${url.origin}/api/v3`,
        repository: path,
      };
    case 'gitlab':
      return { apiBaseUrl: `${url.origin}/api/v4`, repository: path };
    case 'bitbucket':
      return {
        apiBaseUrl: host === 'bitbucket.org' ? 'https://api.bitbucket.org' : url.origin,
        repository: path,
      };
    case 'bitbucket-server': {
      // `https://host[/context]/scm/PROJECT/repo.git`; the REST API sits under the same context path.
      const clone = SERVER_CLONE.exec(`/${path}`);
      if (clone === null) return { apiBaseUrl: url.origin, repository: path };
      return { apiBaseUrl: `${url.origin}${clone[1]}`, repository: `${clone[2]}/${clone[3]}` };
    }
    case 'azure-devops':
      return azureLocation(url, path);
  }
}

/**
 * `https://dev.azure.com/org/project/_git/repo` → collection `https://dev.azure.com/org` and
 * `project/repo`; `https://org.visualstudio.com[/DefaultCollection]/project/_git/repo` and Azure DevOps
 * Server (`https://host/tfs/Collection/project/_git/repo`) alike. `org/_git/repo` names a project `repo`.
 */
function azureLocation(url: URL, path: string): { apiBaseUrl: string; repository: string } | undefined {
  const at = path.indexOf('/_git/');
  if (at < 0 && !path.startsWith('_git/')) return undefined;
  const before = at < 0 ? [] : path.slice(0, at).split('/');
  const repo = path.slice(at < 0 ? '_git/'.length : at + '/_git/'.length);
  if (repo === '' || repo.includes('/')) return undefined;
  const onCloud = url.hostname.toLowerCase() === 'dev.azure.com';
  const projectGiven = onCloud ? before.length >= 2 : before.length >= 1;
  const project = projectGiven ? (before.at(-1) ?? repo) : repo;
  const collection = projectGiven ? before.slice(0, -1) : before;
  const prefix = collection.length === 0 ? '' : `/${collection.join('/')}`;
  return {
    apiBaseUrl: `${url.origin}${prefix}`,
    repository: `${decodeURIComponent(project)}/${decodeURIComponent(repo)}`,
  };
}
