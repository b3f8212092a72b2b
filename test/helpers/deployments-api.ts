import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CannedAnswer, RecordedRequest } from './git-provider-api.js';

export interface HostDeployment {
  readonly host: 'github' | 'gitlab';
  /** `owner/repo`, or the GitLab project path (decoded). */
  readonly repository: string;
  readonly id: number;
  readonly sha: string;
  readonly ref: string;
  readonly environment: string;
  readonly authorization: string;
  readonly body: Record<string, unknown>;
  /** Every state it was given, in order (GitLab's create `status` first; GitHub's statuses only). */
  readonly states: string[];
  /** The bodies of GitHub's deployment statuses, in order. */
  readonly statuses: Record<string, unknown>[];
}

/**
 * Loopback stand-ins for GitHub's deployments API (`{url}/github`: `POST /repos/{o}/{r}/deployments` wants
 * `ref` and `environment`, `required_contexts` a list; `POST …/deployments/{id}/statuses` a known state) and
 * GitLab's (`{url}/gitlab/api/v4`: `POST /projects/{id}/deployments` wants `environment`, `sha`, `ref`,
 * `tag` and a status; `PUT /projects/{id}/deployments/{id}` refuses a transition to the status it has and
 * back to `running`, as GitLab's state machine does). No credential: 401; an unknown deployment: 404. A
 * canned answer (per method and path) comes first: 503, 429 with Retry-After, a delay.
 */
export interface DeploymentsDouble {
  readonly githubApi: string;
  readonly gitlabApi: string;
  readonly requests: RecordedRequest[];
  readonly deployments: HostDeployment[];
  /** Canned answers for the next requests (`POST /github/repos/o/r/deployments`), one each, then the API again. */
  answer(methodAndPath: string, answer: CannedAnswer | readonly CannedAnswer[]): void;
  close(): Promise<void>;
}

const GITHUB_CREATE = /^\/github\/repos\/([^/]+\/[^/]+)\/deployments$/;
const GITHUB_STATUS = /^\/github\/repos\/([^/]+\/[^/]+)\/deployments\/(\d+)\/statuses$/;
const GITLAB_CREATE = /^\/gitlab\/api\/v4\/projects\/([^/]+)\/deployments$/;
const GITLAB_UPDATE = /^\/gitlab\/api\/v4\/projects\/([^/]+)\/deployments\/(\d+)$/;
const GITHUB_STATES = new Set([
  'error',
  'failure',
  'inactive',
  'in_progress',
  'queued',
  'pending',
  'success',
]);
const GITLAB_STATES = new Set(['running', 'success', 'failed', 'canceled']);

function api(
  method: string,
  url: string,
  authorization: string,
  gitlabToken: string,
  text: string,
  deployments: HostDeployment[],
): CannedAnswer | undefined {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text || '{}') as Record<string, unknown>;
  } catch {
    return { status: 400, body: { message: 'Problems parsing JSON' } };
  }
  const str = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : '');
  const github = GITHUB_CREATE.exec(url) ?? GITHUB_STATUS.exec(url);
  if (github !== null && method === 'POST') {
    if (!/^Bearer \S+$/.test(authorization))
      return { status: 401, body: { message: 'Requires authentication' } };
    const repository = github[1] ?? '';
    if (github[2] === undefined) {
      if (str('ref') === '' || str('environment') === '' || !Array.isArray(body.required_contexts))
        return { status: 422, body: { message: 'Validation Failed' } };
      const created: HostDeployment = {
        host: 'github',
        repository,
        id: deployments.length + 1,
        sha: str('ref'),
        ref: str('ref'),
        environment: str('environment'),
        authorization,
        body,
        states: [],
        statuses: [],
      };
      deployments.push(created);
      return { status: 201, body: { id: created.id, sha: created.sha, environment: created.environment } };
    }
    const deployment = deployments.find((d) => d.host === 'github' && d.id === Number(github[2]));
    if (deployment === undefined || deployment.repository !== repository)
      return { status: 404, body: { message: 'Not Found' } };
    if (!GITHUB_STATES.has(str('state'))) return { status: 422, body: { message: 'Validation Failed' } };
    deployment.states.push(str('state'));
    deployment.statuses.push(body);
    return { status: 201, body: { id: deployment.statuses.length, state: str('state') } };
  }
  const gitlab = GITLAB_CREATE.exec(url) ?? GITLAB_UPDATE.exec(url);
  if (gitlab === null) return undefined;
  if (authorization !== gitlabToken) return { status: 401, body: { message: '401 Unauthorized' } };
  const repository = decodeURIComponent(gitlab[1] ?? '');
  const status = str('status');
  if (!GITLAB_STATES.has(status))
    return { status: 400, body: { message: 'status does not have a valid value' } };
  if (gitlab[2] === undefined && method === 'POST') {
    if (str('environment') === '' || str('sha') === '' || str('ref') === '' || typeof body.tag !== 'boolean')
      return { status: 400, body: { message: 'environment, sha, ref, tag are missing' } };
    const created: HostDeployment = {
      host: 'gitlab',
      repository,
      id: 1000 + deployments.length + 1,
      sha: str('sha'),
      ref: str('ref'),
      environment: str('environment'),
      authorization,
      body,
      states: [status],
      statuses: [],
    };
    deployments.push(created);
    return { status: 201, body: { id: created.id, iid: deployments.length, status } };
  }
  if (gitlab[2] === undefined || method !== 'PUT') return undefined;
  const deployment = deployments.find((d) => d.host === 'gitlab' && d.id === Number(gitlab[2]));
  if (deployment === undefined || deployment.repository !== repository)
    return { status: 404, body: { message: '404 Not found' } };
  const from = deployment.states.at(-1);
  if (from === status || status === 'running')
    return { status: 400, body: { message: `Cannot transition status via :${status} from :${from}` } };
  deployment.states.push(status);
  return { status: 200, body: { id: deployment.id, status } };
}

export async function startDeploymentsApi(options: {
  readonly gitlabToken: string;
}): Promise<DeploymentsDouble> {
  const deployments: HostDeployment[] = [];
  const answers = new Map<string, CannedAnswer[]>();
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method, url, headers: req.headers, body });
      const authorization = String(req.headers.authorization ?? req.headers['private-token'] ?? '');
      const canned = answers.get(`${method} ${url}`)?.shift() ??
        api(method, url, authorization, options.gitlabToken, body, deployments) ?? {
          status: 404,
          body: { message: 'Not Found' },
        };
      const reply = () => {
        if (res.destroyed) return;
        res.writeHead(canned.status ?? 200, { 'Content-Type': 'application/json', ...canned.headers });
        res.end(typeof canned.body === 'string' ? canned.body : JSON.stringify(canned.body ?? {}));
      };
      if (canned.delayMs === undefined) reply();
      else setTimeout(reply, canned.delayMs);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    githubApi: `${url}/github`,
    gitlabApi: `${url}/gitlab/api/v4`,
    requests,
    deployments,
    answer: (methodAndPath, answer) => {
      answers.set(methodAndPath, Array.isArray(answer) ? [...answer] : [answer as CannedAnswer]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
