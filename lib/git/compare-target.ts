import type { RepositoryProvider } from '../fleet/fleet-config.js';
import type { CompareRequest } from './compare.js';

export interface CompareSource {
  /** The fleet file's repository URL. */
  readonly url: string;
  readonly provider?: RepositoryProvider;
  /** The fleet file's `apiUrl`: GitHub Enterprise, self-hosted GitLab (with a relative URL root), tests. */
  readonly apiUrl?: string;
}

export type CompareTarget = Pick<CompareRequest, 'provider' | 'apiBaseUrl' | 'repository'>;

/**
 * Where to ask for a comparison, from the fleet file only (a token is never sent to a host taken from a
 * payload). The provider is guessed from the host when not given; `generic` or an unknown host: none.
 */
export function compareTarget(source: CompareSource): CompareTarget | undefined {
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  const provider =
    source.provider ?? (host === 'github.com' ? 'github' : host.includes('gitlab') ? 'gitlab' : undefined);
  if (provider === undefined || provider === 'generic') return undefined;
  const repository = url.pathname
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '');
  if (!repository.includes('/')) return undefined;
  const apiBaseUrl =
    source.apiUrl ??
    (provider === 'github'
      ? host === 'github.com'
        ? 'https://api.github.com'
        : `${url.origin}/api/v3`
      : `${url.origin}/api/v4`);
  return { provider, apiBaseUrl, repository };
}
