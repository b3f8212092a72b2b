import { DEFAULT_STATUS_BUDGET, type StatusRetryBudget } from '../commit-status/post-status.js';
import { AppError } from '../errors.js';
import type { GitHubRepoRef, InstallationTokens } from './github-app-token.js';
import { CHECK_RUN_NAME, type PlannedCheckRun } from './plan.js';
import { retryAfterMs } from './retry-after.js';

/** GitHub's check runs API, as the notice uses it: one create per commit, then updates in place. */
export interface CheckRunApi {
  /** The new check run's id. */
  create(repo: GitHubRepoRef, sha: string, plan: PlannedCheckRun): Promise<number>;
  update(repo: GitHubRepoRef, id: number, plan: PlannedCheckRun): Promise<void>;
}

/** A call GitHub did not take. The message names the HTTP status only: never a URL query or a token. */
export class CheckRunError extends AppError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message, { code: 'check-run' });
  }

  /** GitHub refused the token (401): worth one fresh installation token. */
  unauthorized = false;
}

export interface CheckRunApiDeps {
  readonly tokens: InstallationTokens;
  readonly fetch?: typeof fetch;
  readonly budget?: StatusRetryBudget;
  readonly now?: () => Date;
}

/**
 * `POST /repos/{o}/{r}/check-runs` and `PATCH /repos/{o}/{r}/check-runs/{id}` with the App's installation
 * token. 429, 5xx and GitHub's secondary rate limit (403 with `Retry-After`) are retried within the budget;
 * a 401 (a token expired early or revoked) takes a fresh token once, then fails.
 */
export function githubCheckRunApi(deps: CheckRunApiDeps): CheckRunApi {
  const doFetch = deps.fetch ?? fetch;
  const budget = deps.budget ?? DEFAULT_STATUS_BUDGET;
  const now = deps.now ?? (() => new Date());

  async function call(repo: GitHubRepoRef, method: string, path: string, body: unknown): Promise<unknown> {
    const url = `${repo.apiBaseUrl}/repos/${repo.repository}${path}`;
    let token = await deps.tokens.installationToken(repo);
    let renewed = false;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await once(doFetch, url, method, token, body, budget.timeoutMs);
      } catch (thrown) {
        const error = thrown instanceof CheckRunError ? thrown : new CheckRunError('host unreachable', true);
        if (error.unauthorized && !renewed) {
          renewed = true;
          token = await deps.tokens.installationToken(repo, { refresh: true });
          continue;
        }
        if (!error.retryable || attempt >= budget.maxAttempts) throw error;
        const wait = error.retryAfterMs ?? budget.backoffMs * attempt;
        if (waited + wait > budget.maxWaitMs) throw error;
        await budget.sleep(wait);
        waited += wait;
      }
    }
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
      if (typeof id !== 'number') throw new CheckRunError('the created check run has no id', false);
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

async function once(
  doFetch: typeof fetch,
  url: string,
  method: string,
  token: string,
  body: unknown,
  timeoutMs: number,
): Promise<unknown> {
  let response: Response;
  try {
    response = await doFetch(url, {
      method,
      headers: {
        Accept: 'application/vnd.github+json',
        'X-GitHub-Api-Version': '2022-11-28',
        'Content-Type': 'application/json',
        'User-Agent': 'gitops-sync-orchestrator',
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as { name?: string }).name === 'TimeoutError';
    throw new CheckRunError(timedOut ? `no answer within ${timeoutMs} ms` : 'host unreachable', true);
  }
  const { status } = response;
  if (response.ok) return response.json().catch(() => undefined);
  await response.body?.cancel().catch(() => undefined);
  if (status >= 300 && status < 400)
    throw new CheckRunError(`HTTP ${status}: redirect refused (the token is not sent elsewhere)`, false);
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  // GitHub's secondary rate limit answers 403 (sometimes 429) with Retry-After, or with no requests left.
  const limited =
    status === 403 && (retryAfter !== undefined || response.headers.get('x-ratelimit-remaining') === '0');
  if (status === 429 || status >= 500 || limited) {
    const reset =
      limited && retryAfter === undefined ? resetMs(response.headers.get('x-ratelimit-reset')) : undefined;
    throw new CheckRunError(`HTTP ${status}`, true, retryAfter ?? reset);
  }
  const refused = new CheckRunError(`HTTP ${status}`, false);
  refused.unauthorized = status === 401;
  throw refused;
}

/** `x-ratelimit-reset`: epoch seconds when the primary limit resets. */
function resetMs(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Math.max(0, Number(value.trim()) * 1000 - Date.now());
}
