import { createAppAuth } from '@octokit/auth-app';
import { request as octokitRequest } from '@octokit/request';
import { AppError } from '../errors.js';
import type { GitHubAppConfig } from '../fleet/fleet-config.js';
import { DEFAULT_HOST_BUDGET, type HostCallBudget } from '../http/host-call.js';
import { retryAfterMs, withRetries } from '../http/retry-schedule.js';
import type { SecretReader } from '../ports.js';
import { normalizePem, privateKeyProblem } from './private-key.js';

/** A GitHub repository as its API sees it: the REST base (`https://api.github.com`, GHES `…/api/v3`) and `owner/name`. */
export interface GitHubRepoRef {
  readonly apiBaseUrl: string;
  readonly repository: string;
}

/**
 * The GitHub App's installation token for a repository (check runs, deployments, statuses). `refresh`
 * skips the cache: the caller saw a 401 with the cached one (expired early or revoked).
 */
export interface InstallationTokens {
  installationToken(repo: GitHubRepoRef, options?: { readonly refresh?: boolean }): Promise<string>;
}

/** What the App could not do. The message names the step and the HTTP status: never a key or a token. */
export class GitHubAppError extends AppError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'github-app', ...options });
  }
}

export interface GitHubAppTokenDeps {
  readonly app: GitHubAppConfig;
  readonly secrets: SecretReader;
  /** The HTTP client octokit uses (tests point it at a local double; default global fetch). */
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  /** Attempts, waits and the per-request timeout of the token calls (default: the commit statuses'). */
  readonly budget?: HostCallBudget;
}

/** Installation tokens live an hour; one is taken again this long before it ends. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

/**
 * Installation tokens from the App's JWT (`@octokit/auth-app`: RS256, PKCS#1 or PKCS#8 key):
 * `POST {apiBaseUrl}/app/installations/{id}/access_tokens`, the id from the fleet file or looked up once per
 * repository (`GET /repos/{owner}/{repo}/installation`). Each token is kept until shortly before it expires;
 * concurrent callers share one request. The key is read (and checked) once, on first use or `checkKey`.
 */
export function githubAppTokens(deps: GitHubAppTokenDeps): InstallationTokens & {
  /** Reads the private key and says clearly when it is not a PEM RSA key (cold start). */
  checkKey(): Promise<void>;
} {
  const now = deps.now ?? Date.now;
  const timedFetch = retryingFetch(deps.fetch ?? fetch, deps.budget ?? DEFAULT_HOST_BUDGET);
  let key: Promise<string> | undefined;
  const auths = new Map<string, ReturnType<typeof createAppAuth>>();
  const installations = new Map<string, Promise<number>>();
  const tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();

  const privateKey = () => {
    key ??= readKey(deps).catch((error: unknown) => {
      key = undefined; // a Secrets Manager outage is tried again by the next caller
      throw error;
    });
    return key;
  };
  const requestFor = (apiBaseUrl: string) =>
    octokitRequest.defaults({ baseUrl: apiBaseUrl, request: { fetch: timedFetch } });
  const authFor = async (apiBaseUrl: string) => {
    const existing = auths.get(apiBaseUrl);
    if (existing !== undefined) return existing;
    const auth = createAppAuth({
      appId: deps.app.appId,
      privateKey: await privateKey(),
      request: requestFor(apiBaseUrl),
      // Ours is the only cache: it knows each token's expiry (auth-app's keeps 59 minutes regardless).
      cache: { get: () => '', set: () => undefined },
    });
    auths.set(apiBaseUrl, auth);
    return auth;
  };

  const installationOf = (repo: GitHubRepoRef): Promise<number> => {
    if (deps.app.installationId !== undefined) return Promise.resolve(deps.app.installationId);
    const cacheKey = `${repo.apiBaseUrl}#${repo.repository.toLowerCase()}`;
    let found = installations.get(cacheKey);
    if (found === undefined) {
      found = (async () => {
        const { token } = await (await authFor(repo.apiBaseUrl))({ type: 'app' });
        const [owner, name] = repo.repository.split('/');
        const answer = await requestFor(repo.apiBaseUrl)('GET /repos/{owner}/{repo}/installation', {
          owner: owner ?? '',
          repo: name ?? '',
          headers: { authorization: `bearer ${token}` },
        }).catch((error: unknown) => {
          throw failed(`the App is not installed on ${repo.repository} (or cannot be reached)`, error);
        });
        return answer.data.id;
      })();
      found.catch(() => installations.delete(cacheKey));
      installations.set(cacheKey, found);
    }
    return found;
  };

  return {
    checkKey: async () => {
      await privateKey();
    },
    async installationToken(repo, options = {}) {
      const installationId = await installationOf(repo);
      const cacheKey = `${repo.apiBaseUrl}#${installationId}`;
      const cached = tokens.get(cacheKey);
      if (cached !== undefined && options.refresh !== true) {
        const held = await cached.catch(() => undefined);
        if (held !== undefined && held.expiresAt - RENEW_BEFORE_MS > now()) return held.token;
        // Another caller is taking the next one already: share it.
        const newer = tokens.get(cacheKey);
        if (newer !== undefined && newer !== cached) return (await newer).token;
      }
      const fresh = (async () => {
        const auth = await authFor(repo.apiBaseUrl);
        const answer = await auth({ type: 'installation', installationId, refresh: true }).catch(
          (error: unknown) => {
            throw failed('no installation token', error);
          },
        );
        return { token: answer.token, expiresAt: Date.parse(answer.expiresAt) };
      })();
      tokens.set(cacheKey, fresh);
      fresh.catch(() => {
        if (tokens.get(cacheKey) === fresh) tokens.delete(cacheKey);
      });
      return (await fresh).token;
    },
  };
}

async function readKey(deps: GitHubAppTokenDeps): Promise<string> {
  const { app } = deps;
  const field = app.privateKey !== undefined ? 'githubApp.privateKey' : 'githubApp.privateKeySecret';
  let text: string;
  if (app.privateKey !== undefined) text = app.privateKey;
  else if (app.privateKeySecret !== undefined) {
    try {
      text = await deps.secrets.getSecretString(app.privateKeySecret);
    } catch (error) {
      throw new GitHubAppError(`${field}: the secret cannot be read`, { cause: error });
    }
  } else throw new GitHubAppError('githubApp: needs privateKeySecret');
  const pem = normalizePem(text);
  const problem = privateKeyProblem(pem);
  if (problem !== undefined) throw new GitHubAppError(`${field}: the key ${problem}`);
  return pem;
}

/** An octokit failure as a message with its HTTP status only (octokit's own may carry the request). */
function failed(step: string, error: unknown): GitHubAppError {
  // octokit reports a request that got no answer as status 500 without a response.
  const { status, response } = error as { status?: unknown; response?: unknown };
  const http = typeof status === 'number' && response !== undefined ? `HTTP ${status}` : 'GitHub unreachable';
  return new GitHubAppError(`${step}: ${http}`);
}

/**
 * The fetch octokit uses for the token calls: a timeout per attempt, no redirects (the JWT stays with
 * GitHub), and 429, 5xx and no answer retried within the budget, honouring `Retry-After`.
 */
function retryingFetch(baseFetch: typeof fetch, budget: HostCallBudget): typeof fetch {
  return (input, init) =>
    withRetries<Response>(budget, async () => {
      let response: Response;
      try {
        response = await baseFetch(input, {
          ...init,
          redirect: 'manual',
          signal: AbortSignal.timeout(budget.timeoutMs),
        });
      } catch (failure) {
        return {
          again: {
            giveUp: () => {
              throw failure;
            },
          },
        };
      }
      if (response.status !== 429 && response.status < 500) return { done: response };
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      // The last answer is handed to octokit as it came; one that will be tried again is let go.
      return {
        again: {
          retryAfterMs: retryAfter,
          giveUp: () => response,
          release: async () => response.body?.cancel(),
        },
      };
    });
}
