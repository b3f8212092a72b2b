import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CannedAnswer {
  readonly status?: number;
  /** JSON-encoded unless a string. */
  readonly body?: unknown;
  /** Hold the answer this long (to exercise client timeouts). */
  readonly delayMs?: number;
  /** Extra response headers (`Retry-After`, `Location` of a redirect). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as received (still percent-encoded). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A loopback stand-in for the GitHub and GitLab compare APIs. Answers are canned per request path (with
 * query); anything unknown is a 404 like the real APIs give for a missing repo or commit.
 * GitHub's API base is `${url}/github`, GitLab's `${url}/gitlab/api/v4`.
 */
export interface ProviderApiDouble {
  readonly url: string;
  readonly githubApi: string;
  readonly gitlabApi: string;
  readonly requests: RecordedRequest[];
  /** Commit statuses the GitHub and GitLab status APIs took, in order. */
  readonly statuses: PostedCommitStatus[];
  /** A list is answered in order, its last entry repeating. */
  answer(pathAndQuery: string, answer: CannedAnswer | readonly CannedAnswer[]): void;
  /** For every path starting with `prefix` that has no exact answer (e.g. every commit's statuses). */
  answerPrefix(prefix: string, answer: CannedAnswer | readonly CannedAnswer[]): void;
  close(): Promise<void>;
}

export interface PostedCommitStatus {
  readonly host: 'github' | 'gitlab';
  readonly repository: string;
  readonly sha: string;
  readonly state: string;
  readonly context: string;
  readonly description: string | undefined;
  readonly targetUrl: string | undefined;
  readonly authorization: string;
}

const GITHUB_STATUS = /^\/github\/repos\/([^/]+\/[^/]+)\/statuses\/([0-9a-f]{40})$/;
const GITLAB_STATUS = /^\/gitlab\/api\/v4\/projects\/([^/]+)\/statuses\/([0-9a-f]{40})$/;
const GITHUB_STATES = new Set(['error', 'failure', 'pending', 'success']);
const GITLAB_STATES = new Set(['pending', 'running', 'success', 'failed', 'canceled']);

/**
 * The status APIs as documented, with the limits that bite: GitHub wants a token, a known state and at
 * most 140 characters of description (422 otherwise); GitLab refuses to move a status to the state it
 * already has (400 "Cannot transition status via :run from :running").
 */
function statusApi(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  text: string,
  statuses: PostedCommitStatus[],
): CannedAnswer | undefined {
  const github = GITHUB_STATUS.exec(url);
  const gitlab = GITLAB_STATUS.exec(url);
  if (method !== 'POST' || (github === null && gitlab === null)) return undefined;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { status: 400, body: { message: 'Problems parsing JSON' } };
  }
  const str = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : undefined);
  if (github !== null) {
    const authorization = String(headers.authorization ?? '');
    if (!/^(Bearer|token) \S+$/.test(authorization))
      return { status: 401, body: { message: 'Requires authentication' } };
    const state = str('state') ?? '';
    if (!GITHUB_STATES.has(state) || (str('description')?.length ?? 0) > 140)
      return { status: 422, body: { message: 'Validation Failed' } };
    const status: PostedCommitStatus = {
      host: 'github',
      repository: github[1] ?? '',
      sha: github[2] ?? '',
      state,
      context: str('context') ?? 'default',
      authorization,
      description: str('description'),
      targetUrl: str('target_url'),
    };
    statuses.push(status);
    return { status: 201, body: { state, context: status.context } };
  }
  const token = String(headers['private-token'] ?? '');
  if (token === '') return { status: 401, body: { message: '401 Unauthorized' } };
  const state = str('state') ?? '';
  if (!GITLAB_STATES.has(state)) return { status: 400, body: { error: 'state does not have a valid value' } };
  const repository = decodeURIComponent(gitlab?.[1] ?? '');
  const sha = gitlab?.[2] ?? '';
  const name = str('name') ?? 'default';
  const last = statuses
    .filter((s) => s.host === 'gitlab' && s.repository === repository && s.sha === sha && s.context === name)
    .at(-1);
  if (last?.state === state)
    return {
      status: 400,
      body: {
        message: `Cannot transition status via :${state === 'running' ? 'run' : state} from :${state}`,
      },
    };
  statuses.push({
    host: 'gitlab',
    repository,
    sha,
    state,
    context: name,
    authorization: token,
    description: str('description'),
    targetUrl: str('target_url'),
  });
  return { status: 201, body: { status: state, name } };
}

export async function startProviderApi(): Promise<ProviderApiDouble> {
  const statuses: PostedCommitStatus[] = [];
  const answers = new Map<string, CannedAnswer[]>();
  const prefixes = new Map<string, CannedAnswer[]>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const next = (list: CannedAnswer[] | undefined) =>
    list !== undefined && list.length > 1 ? list.shift() : list?.[0];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? 'GET',
        url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const prefix = [...prefixes.keys()].find((p) => url.startsWith(p));
      const canned = next(answers.get(url)) ??
        next(prefix === undefined ? undefined : prefixes.get(prefix)) ??
        statusApi(req.method ?? 'GET', url, req.headers, requests.at(-1)?.body ?? '', statuses) ?? {
          status: 404,
          body: { message: 'Not Found' },
        };
      respond(canned);
    });
    const respond = (canned: CannedAnswer) => {
      const send = () => {
        const body = typeof canned.body === 'string' ? canned.body : JSON.stringify(canned.body ?? {});
        res.writeHead(canned.status ?? 200, { 'Content-Type': 'application/json', ...canned.headers });
        res.end(body);
      };
      if (canned.delayMs === undefined) send();
      else {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) send();
        }, canned.delayMs);
        timers.add(timer);
      }
    };
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    githubApi: `${url}/github`,
    gitlabApi: `${url}/gitlab/api/v4`,
    requests,
    statuses,
    answer: (pathAndQuery, answer) =>
      answers.set(pathAndQuery, Array.isArray(answer) ? [...answer] : [answer as CannedAnswer]),
    answerPrefix: (prefix, answer) =>
      prefixes.set(prefix, Array.isArray(answer) ? [...answer] : [answer as CannedAnswer]),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type GitHubFileStatus = 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';

/** A GitHub "compare two commits" answer shaped after the documented schema (patches left out). */
export function githubComparison(
  status: 'ahead' | 'behind' | 'diverged' | 'identical',
  files: readonly { filename: string; status: GitHubFileStatus; previous_filename?: string }[],
): Record<string, unknown> {
  return {
    url: 'https://api.github.com/repos/org/gitops/compare/a...b',
    status,
    ahead_by: status === 'behind' || status === 'identical' ? 0 : 1,
    behind_by: status === 'behind' || status === 'diverged' ? 1 : 0,
    total_commits: 1,
    commits: [],
    files: files.map((file) => ({ sha: 'f'.repeat(40), additions: 1, deletions: 0, changes: 1, ...file })),
  };
}

/** A GitLab "compare branches, tags or commits" answer shaped after the documented schema. */
export function gitlabComparison(
  diffs: readonly {
    old_path: string;
    new_path: string;
    new_file?: boolean;
    renamed_file?: boolean;
    deleted_file?: boolean;
  }[],
  options: { compareTimeout?: boolean } = {},
): Record<string, unknown> {
  return {
    commit: null,
    commits: [],
    diffs: diffs.map((diff) => ({
      a_mode: '100644',
      b_mode: '100644',
      diff: '@@ -1 +1 @@\n',
      new_file: false,
      renamed_file: false,
      deleted_file: false,
      ...diff,
    })),
    compare_timeout: options.compareTimeout ?? false,
    compare_same_ref: false,
  };
}
