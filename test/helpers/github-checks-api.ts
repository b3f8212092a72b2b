import { createVerify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CannedAnswer, RecordedRequest } from './git-provider-api.js';

/** A check run as the double holds it, with every body it was created or updated with. */
export interface DoubleCheckRun {
  readonly id: number;
  readonly repository: string;
  readonly headSha: string;
  state: Record<string, unknown>;
  readonly bodies: { readonly method: 'POST' | 'PATCH'; readonly body: Record<string, unknown> }[];
}

/** An App JWT the double checked: its claims, and whether the App's public key verified its RS256 signature. */
export interface SeenJwt {
  readonly alg: unknown;
  readonly iss: unknown;
  readonly iat: number;
  readonly exp: number;
  readonly verified: boolean;
}

/**
 * A loopback GitHub for a GitHub App (`{url}/api/v3`, as GitHub Enterprise serves it): App JWTs are
 * checked as GitHub does (RS256 against the App's public key, `iss` the App id, `exp` at most 10 minutes
 * after `iat`) before `POST /app/installations/{id}/access_tokens` hands out an installation token and
 * `GET /repos/{o}/{r}/installation` names the installation. The check runs API takes only a live
 * installation token, refuses bodies past GitHub's documented limits (422: `output.summary`/`text` over
 * 65,535 characters, more than 3 actions, label > 20, description > 40, identifier > 20, `conclusion`
 * missing on `completed`, a completed run moved back to another status) and keeps each run. Canned answers (per path) come first, one each.
 */
export interface GitHubChecksDouble {
  readonly apiUrl: string;
  readonly requests: RecordedRequest[];
  readonly jwts: SeenJwt[];
  readonly tokens: string[];
  readonly checkRuns: DoubleCheckRun[];
  /** Tokens issued from now on expire this many seconds after issue (default 3600). */
  tokenTtlSeconds: number;
  /** Every token issued so far answers 401 from now on (revoked, or expired early). */
  revokeTokens(): void;
  answer(path: string, answer: CannedAnswer | readonly CannedAnswer[]): void;
  close(): Promise<void>;
}

export interface GitHubChecksOptions {
  readonly appId: number;
  readonly publicKey: KeyObject;
  readonly installationId: number;
  /** `owner/repo` the App is installed on (others: 404 on the installation lookup). */
  readonly installedOn: readonly string[];
}

const MAX_OUTPUT = 65_535;
const STATUSES = new Set(['queued', 'in_progress', 'completed']);
const CONCLUSIONS = new Set([
  'action_required',
  'cancelled',
  'failure',
  'neutral',
  'success',
  'skipped',
  'stale',
  'timed_out',
]);

export async function startGitHubChecksApi(options: GitHubChecksOptions): Promise<GitHubChecksDouble> {
  const requests: RecordedRequest[] = [];
  const jwts: SeenJwt[] = [];
  const tokens: string[] = [];
  const live = new Map<string, number>();
  const checkRuns: DoubleCheckRun[] = [];
  const answers = new Map<string, CannedAnswer[]>();
  const double = { tokenTtlSeconds: 3600 };

  const appJwt = (headers: IncomingHttpHeaders): boolean => {
    const match = /^bearer (.+)$/i.exec(String(headers.authorization ?? ''));
    const [head, payload, signature] = match?.[1]?.split('.') ?? [];
    if (head === undefined || payload === undefined || signature === undefined) return false;
    const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    const header = decode(head) as { alg?: unknown };
    const claims = decode(payload) as { iss?: unknown; iat?: number; exp?: number };
    const verified = createVerify('RSA-SHA256')
      .update(`${head}.${payload}`)
      .verify(options.publicKey, Buffer.from(signature, 'base64url'));
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    jwts.push({ alg: header.alg, iss: claims.iss, iat, exp, verified });
    return (
      verified &&
      header.alg === 'RS256' &&
      String(claims.iss) === String(options.appId) &&
      iat <= now + 60 &&
      exp > now &&
      exp - iat <= 600
    );
  };
  const installationToken = (headers: IncomingHttpHeaders): boolean => {
    const match = /^(?:bearer|token) (\S+)$/i.exec(String(headers.authorization ?? ''));
    const expires = live.get(match?.[1] ?? '');
    return expires !== undefined && expires > Date.now();
  };

  const api = (method: string, path: string, headers: IncomingHttpHeaders, text: string): CannedAnswer => {
    const unauthorized = { status: 401, body: { message: 'Bad credentials' } };
    const tokenPath = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (method === 'POST' && tokenPath !== null) {
      if (!appJwt(headers)) return unauthorized;
      if (Number(tokenPath[1]) !== options.installationId)
        return { status: 404, body: { message: 'Not Found' } };
      const token = `ghs_double${tokens.length + 1}${'x'.repeat(20)}`;
      const expiresAt = Date.now() + double.tokenTtlSeconds * 1000;
      tokens.push(token);
      live.set(token, expiresAt);
      return {
        status: 201,
        body: { token, expires_at: new Date(expiresAt).toISOString(), permissions: { checks: 'write' } },
      };
    }
    const installation = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/installation$/.exec(path);
    if (method === 'GET' && installation !== null) {
      if (!appJwt(headers)) return unauthorized;
      return options.installedOn.includes(installation[1] ?? '')
        ? { status: 200, body: { id: options.installationId, app_id: options.appId } }
        : { status: 404, body: { message: 'Not Found' } };
    }
    const create = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/check-runs$/.exec(path);
    const update = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/check-runs\/(\d+)$/.exec(path);
    if ((method === 'POST' && create !== null) || (method === 'PATCH' && update !== null)) {
      if (!installationToken(headers)) return unauthorized;
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return { status: 400, body: { message: 'Problems parsing JSON' } };
      }
      const problem = checkRunProblem(body, method === 'POST');
      if (problem !== undefined)
        return { status: 422, body: { message: 'Validation Failed', errors: [problem] } };
      if (create !== null) {
        const run: DoubleCheckRun = {
          id: 4_000 + checkRuns.length + 1,
          repository: create[1] ?? '',
          headSha: String(body.head_sha),
          state: { ...body },
          bodies: [{ method: 'POST', body }],
        };
        checkRuns.push(run);
        return { status: 201, body: { id: run.id, head_sha: run.headSha, ...body } };
      }
      const run = checkRuns.find((r) => r.id === Number(update?.[2]) && r.repository === update?.[1]);
      if (run === undefined) return { status: 404, body: { message: 'Not Found' } };
      // GitHub never moves a completed check run back (it keeps status and conclusion): refused here, loudly.
      if (run.state.status === 'completed' && body.status !== undefined && body.status !== 'completed')
        return {
          status: 422,
          body: { message: 'Validation Failed', errors: ['the check run is completed'] },
        };
      run.state = { ...run.state, ...body };
      run.bodies.push({ method: 'PATCH', body });
      return { status: 200, body: { id: run.id, ...run.state } };
    }
    return { status: 404, body: { message: 'Not Found' } };
  };

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? 'GET', url: path, headers: req.headers, body });
      const canned = answers.get(path)?.shift() ?? api(req.method ?? 'GET', path, req.headers, body);
      const status = canned.status ?? 200;
      res.writeHead(status, { 'Content-Type': 'application/json', ...canned.headers });
      res.end(typeof canned.body === 'string' ? canned.body : JSON.stringify(canned.body ?? {}));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    apiUrl: `http://127.0.0.1:${port}/api/v3`,
    requests,
    jwts,
    tokens,
    checkRuns,
    revokeTokens: () => live.clear(),
    answer: (path: string, answer: CannedAnswer | readonly CannedAnswer[]) => {
      answers.set(path, Array.isArray(answer) ? [...answer] : [answer as CannedAnswer]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** What GitHub's check runs API refuses with a 422 (its documented limits). */
function checkRunProblem(body: Record<string, unknown>, create: boolean): string | undefined {
  if (create && (typeof body.name !== 'string' || body.name === '')) return 'name is required';
  if (create && !/^[0-9a-f]{40}$/.test(String(body.head_sha))) return 'head_sha is not a commit';
  if (body.status !== undefined && !STATUSES.has(String(body.status))) return 'status is invalid';
  if (body.conclusion !== undefined && !CONCLUSIONS.has(String(body.conclusion)))
    return 'conclusion is invalid';
  if (body.status === 'completed' && body.conclusion === undefined)
    return 'conclusion is required when completed';
  const output = body.output as Record<string, unknown> | undefined;
  if (output !== undefined) {
    if (typeof output.title !== 'string' || typeof output.summary !== 'string')
      return 'output.title and output.summary are required';
    if (output.summary.length > MAX_OUTPUT) return 'output.summary is too long';
    if (typeof output.text === 'string' && output.text.length > MAX_OUTPUT) return 'output.text is too long';
  }
  const actions = body.actions;
  if (actions !== undefined) {
    if (!Array.isArray(actions) || actions.length > 3) return 'at most 3 actions';
    for (const action of actions as Record<string, unknown>[]) {
      if (String(action.label ?? '').length > 20 || action.label === undefined) return 'action label';
      if (String(action.description ?? '').length > 40 || action.description === undefined)
        return 'action description';
      if (String(action.identifier ?? '').length > 20 || action.identifier === undefined)
        return 'action identifier';
    }
  }
  return undefined;
}
