import type { Logger } from '../ports.js';

/** What a host's compare API is asked and answers: shared by lib/git/compare.ts and each host's client. */
export const COMPARE_PROVIDERS = [
  'github',
  'gitlab',
  'bitbucket',
  'bitbucket-server',
  'azure-devops',
] as const;
export type CompareProvider = (typeof COMPARE_PROVIDERS)[number];

export interface CompareRequest {
  readonly provider: CompareProvider;
  /**
   * `https://api.github.com`, `https://ghe.example/api/v3`, `https://gitlab.example/api/v4`,
   * `https://api.bitbucket.org`, a Bitbucket Server base (`https://bbs.example[/context]`), or an Azure
   * DevOps collection (`https://dev.azure.com/org`).
   */
  readonly apiBaseUrl: string;
  /**
   * `owner/repo` (GitHub), `group/subgroup/project` (GitLab), `workspace/repo` (Bitbucket),
   * `PROJECT/repo` (Bitbucket Server), `project/repo` (Azure DevOps).
   */
  readonly repository: string;
  /** GitLab's numeric project id; used instead of the path when given. */
  readonly projectId?: number;
  readonly before: string;
  readonly after: string;
  readonly token?: string;
  /**
   * With `token`: basic auth as this user (a Bitbucket app password or API token) instead of a bearer
   * token; `x-token-auth` (Bitbucket's name for an access token) stays a bearer token, as in Argo CD.
   */
  readonly username?: string;
}

/** Assignable to `ChangedFiles`: a complete list, or unknown so that fan-out fails open. */
export type CompareResult =
  | { readonly known: true; readonly files: readonly string[] }
  | { readonly known: false; readonly reason: 'compare-failed'; readonly detail: string };

export interface CompareOptions {
  /** Per HTTP request (default 10 s). */
  readonly timeoutMs?: number;
  /** Largest response body read (default 32 MiB); compare answers carry patches. */
  readonly maxResponseBytes?: number;
  readonly fetch?: typeof fetch;
  readonly logger?: Logger;
}
