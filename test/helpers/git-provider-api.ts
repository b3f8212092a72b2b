import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CannedAnswer {
  readonly status?: number;
  /** JSON-encoded unless a string. */
  readonly body?: unknown;
  /** Hold the answer this long (to exercise client timeouts). */
  readonly delayMs?: number;
  /** Extra response headers (e.g. `Location` of a redirect). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as received (still percent-encoded). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
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
  answer(pathAndQuery: string, answer: CannedAnswer): void;
  close(): Promise<void>;
}

export async function startProviderApi(): Promise<ProviderApiDouble> {
  const answers = new Map<string, CannedAnswer>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', url, headers: req.headers });
    const canned = answers.get(url) ?? { status: 404, body: { message: 'Not Found' } };
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
    answer: (pathAndQuery, answer) => answers.set(pathAndQuery, answer),
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
