import { callHost, type HostCallBudget, HostCallError, type HostCallRequest } from '../http/host-call.js';
import type { GitHubRepoRef, InstallationTokens } from './github-app-token.js';
import { CHECK_RUN_NAME, type PlannedCheckRun } from './plan.js';

/** GitHub's check runs API, as the notice uses it: one create per commit, then updates in place. */
export interface CheckRunApi {
  /** The new check run's id. */
  create(repo: GitHubRepoRef, sha: string, plan: PlannedCheckRun): Promise<number>;
  update(repo: GitHubRepoRef, id: number, plan: PlannedCheckRun): Promise<void>;
}

export interface CheckRunApiDeps {
  readonly tokens: InstallationTokens;
  readonly fetch?: typeof fetch;
  readonly budget?: HostCallBudget;
  readonly now?: () => Date;
}

/**
 * `POST /repos/{o}/{r}/check-runs` and `PATCH /repos/{o}/{r}/check-runs/{id}` with the App's installation
 * token. 429, 5xx and GitHub's secondary rate limit (403 with `Retry-After`) are retried within the budget;
 * a 401 (a token expired early or revoked) takes a fresh token once, then fails.
 */
export function githubCheckRunApi(deps: CheckRunApiDeps): CheckRunApi {
  const now = deps.now ?? (() => new Date());

  async function call(repo: GitHubRepoRef, method: string, path: string, body: unknown): Promise<unknown> {
    const request = (token: string): HostCallRequest => ({
      method,
      url: `${repo.apiBaseUrl}/repos/${repo.repository}${path}`,
      headers: {
        Accept: 'application/vnd.github+json',
        'X-GitHub-Api-Version': '2022-11-28',
        'Content-Type': 'application/json',
        'User-Agent': 'gitops-sync-orchestrator',
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
    return callHost(request(await deps.tokens.installationToken(repo)), {
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      ...(deps.budget === undefined ? {} : { budget: deps.budget }),
      // A token that expired early or was revoked: one fresh token, then the 401 is the error.
      mendOnce: async (error) =>
        error.hostStatus === 401
          ? request(await deps.tokens.installationToken(repo, { refresh: true }))
          : undefined,
    });
  }

  return {
    async create(repo, sha, plan) {
      const answer = await call(repo, 'POST', '/check-runs', {
        name: CHECK_RUN_NAME,
        head_sha: sha,
        external_id: sha,
        ...body(plan, now()),
      });
      const id = (answer as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'number') throw new HostCallError('the created check run has no id', false);
      return id;
    },
    async update(repo, id, plan) {
      await call(repo, 'PATCH', `/check-runs/${id}`, body(plan, now()));
    },
  };
}

function body(plan: PlannedCheckRun, at: Date): Record<string, unknown> {
  return {
    ...(plan.outputOnly === true ? {} : { status: plan.status }),
    ...(plan.conclusion === undefined ? {} : { conclusion: plan.conclusion, completed_at: at.toISOString() }),
    ...(plan.detailsUrl === undefined ? {} : { details_url: plan.detailsUrl }),
    output: { title: plan.title, summary: plan.summary, text: plan.text },
    actions: plan.actions,
  };
}
