import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CannedAnswer, RecordedRequest } from './git-provider-api.js';

export type StatusHostName = 'bitbucket-server' | 'azure-devops' | 'gitea';

export interface HostStatus {
  readonly host: StatusHostName;
  /** Bitbucket Server: none (its build status is per commit); Azure: `project/repo`; Gitea: `owner/repo`. */
  readonly repository: string;
  readonly sha: string;
  readonly state: string;
  readonly context: string;
  readonly description: string | undefined;
  readonly targetUrl: string | undefined;
  readonly authorization: string;
  readonly body: Record<string, unknown>;
}

/**
 * Loopback stand-ins for the commit status APIs of Bitbucket Server / Data Center (`{url}/bbs`), Azure
 * DevOps (`{url}/azure/{org}`) and Gitea (`{url}/gitea/api/v1`), with the limits each documents:
 * Bitbucket Server wants `state`, `key` and `url` (400), at most 255 characters of key, name and
 * description and 450 of url, and answers 204; Azure wants `api-version`, basic auth, a known state and a
 * `context.name`; Gitea wants `token` or basic auth and a known state. No credential: 401. A canned
 * answer (per path and query) comes first: 429 with Retry-After, 401, a redirect.
 */
export interface StatusHostsDouble {
  readonly url: string;
  readonly bitbucketServerBase: string;
  readonly azureCollection: string;
  readonly giteaApi: string;
  readonly requests: RecordedRequest[];
  readonly statuses: HostStatus[];
  /** Canned answers for the next requests to the path, one each, then the API answers again. */
  answer(pathAndQuery: string, answer: CannedAnswer | readonly CannedAnswer[]): void;
  close(): Promise<void>;
}

const HEX_SHA = '([0-9a-f]{40})';
const BBS = new RegExp(`^/bbs/rest/build-status/1\\.0/commits/${HEX_SHA}$`);
const AZURE = new RegExp(
  `^/azure/([^/]+)/([^/]+)/_apis/git/repositories/([^/]+)/commits/${HEX_SHA}/statuses(\\?.*)?$`,
);
const GITEA = new RegExp(`^/gitea/api/v1/repos/([^/]+)/([^/]+)/statuses/${HEX_SHA}$`);
const BBS_STATES = new Set(['INPROGRESS', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'UNKNOWN']);
const AZURE_STATES = new Set(['notSet', 'pending', 'succeeded', 'failed', 'error', 'notApplicable']);
const GITEA_STATES = new Set(['pending', 'success', 'error', 'failure', 'warning']);

function statusApi(
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
  text: string,
  statuses: HostStatus[],
): CannedAnswer | undefined {
  const bbs = BBS.exec(url);
  const azure = AZURE.exec(url);
  const gitea = GITEA.exec(url);
  if (method !== 'POST' || (bbs === null && azure === null && gitea === null)) return undefined;
  const authorization = String(headers.authorization ?? '');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { status: 400, body: { message: 'invalid JSON' } };
  }
  const str = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : undefined);
  const longer = (key: string, max: number) => (str(key)?.length ?? 0) > max;
  if (bbs !== null) {
    if (!/^(Bearer \S+|Basic [A-Za-z0-9+/=]+)$/.test(authorization))
      return { status: 401, body: { errors: [{ message: 'Authentication failed.' }] } };
    const state = str('state') ?? '';
    const key = str('key') ?? '';
    const link = str('url') ?? '';
    if (!BBS_STATES.has(state) || key === '' || link === '')
      return { status: 400, body: { errors: [{ message: 'state, key and url are required' }] } };
    if (longer('key', 255) || longer('name', 255) || longer('description', 255) || longer('url', 450))
      return { status: 400, body: { errors: [{ message: 'field too long' }] } };
    statuses.push({
      host: 'bitbucket-server',
      repository: '',
      sha: bbs[1] ?? '',
      state,
      context: key,
      description: str('description'),
      targetUrl: link,
      authorization,
      body,
    });
    return { status: 204, body: '' };
  }
  if (azure !== null) {
    const query = new URLSearchParams((azure[5] ?? '').replace(/^\?/, ''));
    if (query.get('api-version') === null)
      return { status: 400, body: { message: 'No api-version was supplied for the POST request.' } };
    if (!/^Basic [A-Za-z0-9+/=]+$/.test(authorization))
      return { status: 401, body: { message: 'TF400813: The user is not authorized.' } };
    const state = str('state') ?? '';
    const context = body.context as { name?: unknown; genre?: unknown } | undefined;
    if (!AZURE_STATES.has(state) || typeof context?.name !== 'string' || context.name === '')
      return { status: 400, body: { message: 'The status context name is required.' } };
    const status: HostStatus = {
      host: 'azure-devops',
      repository: `${decodeURIComponent(azure[2] ?? '')}/${decodeURIComponent(azure[3] ?? '')}`,
      sha: azure[4] ?? '',
      state,
      context: context.name,
      description: str('description'),
      targetUrl: str('targetUrl'),
      authorization,
      body,
    };
    statuses.push(status);
    return { status: 201, body: { id: statuses.length, state, context } };
  }
  if (!/^(token \S+|Basic [A-Za-z0-9+/=]+)$/.test(authorization))
    return { status: 401, body: { message: 'token is required' } };
  const state = str('state') ?? '';
  if (!GITEA_STATES.has(state)) return { status: 422, body: { message: 'invalid state' } };
  const status: HostStatus = {
    host: 'gitea',
    repository: `${gitea?.[1] ?? ''}/${gitea?.[2] ?? ''}`,
    sha: gitea?.[3] ?? '',
    state,
    context: str('context') ?? 'default',
    description: str('description'),
    targetUrl: str('target_url'),
    authorization,
    body,
  };
  statuses.push(status);
  return { status: 201, body: { id: statuses.length, status: state, context: status.context } };
}

export async function startStatusHostsApi(): Promise<StatusHostsDouble> {
  const statuses: HostStatus[] = [];
  const answers = new Map<string, CannedAnswer[]>();
  const requests: RecordedRequest[] = [];
  const next = (list: CannedAnswer[] | undefined) => list?.shift();
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? 'GET', url, headers: req.headers, body });
      const canned = next(answers.get(url)) ??
        statusApi(req.method ?? 'GET', url, req.headers, body, statuses) ?? {
          status: 404,
          body: { message: 'Not Found' },
        };
      const text = typeof canned.body === 'string' ? canned.body : JSON.stringify(canned.body ?? {});
      const status = canned.status ?? 200;
      res.writeHead(status, {
        ...(status === 204 ? {} : { 'Content-Type': 'application/json' }),
        ...canned.headers,
      });
      res.end(status === 204 ? undefined : text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    bitbucketServerBase: `${url}/bbs`,
    azureCollection: `${url}/azure/org`,
    giteaApi: `${url}/gitea/api/v1`,
    requests,
    statuses,
    answer: (pathAndQuery, answer) => {
      answers.set(pathAndQuery, Array.isArray(answer) ? [...answer] : [answer as CannedAnswer]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
