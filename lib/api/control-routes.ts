import { BadRequestError, NotFoundError } from '../errors.js';
import type { HttpRequest } from '../http/request.js';
import { type HttpResponse, json } from '../http/response.js';
import type { Clock } from '../ports.js';
import { type FreezeFleet, freezeFromRequest, repoKey } from '../release/freeze-request.js';
import type { ControlOutcome, FreezeStore, ReleaseControl } from '../release/ports.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { RolloutIndex } from './rollout-index.js';
import { findRollout, resolveSha, rolloutJson } from './rollout-routes.js';

/** What the control routes act through; the API serves them only when it is given these. */
export interface ControlApiDeps {
  readonly control: ReleaseControl;
  readonly freezes: FreezeStore;
  /** The fleet's cluster names and repository URLs, which a freeze is checked against. */
  readonly freezeFleet: () => Promise<FreezeFleet>;
  /** Restores followed revisions (`control: pin`); without it `POST /unpin` is a 409. */
  readonly unpin?: (repo?: string) => Promise<{ readonly queued: boolean }>;
  readonly clock: Clock;
}

interface RouteDeps {
  readonly rollouts: RolloutReader;
  readonly index: RolloutIndex;
  readonly apiToken?: string;
  readonly control: ControlApiDeps;
}

const ACTIONS = new Set(['pause', 'resume', 'abort', 'retry']);
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const FREEZE_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Who acts: the caller's IAM principal ARN in AWS; locally `token` when `API_TOKEN` let the call in,
 * else `local`.
 */
export function callerOf(request: HttpRequest, apiToken: string | undefined): string {
  return request.principal ?? (apiToken === undefined ? 'local' : 'token');
}

/**
 * `POST /rollouts/{sha}/pause|resume|abort|retry`, `POST /freezes`, `DELETE /freezes/{id}`, `POST /unpin`
 * (the caller is authenticated already); undefined when the request is none of them.
 */
export async function controlRoute(
  segments: readonly string[],
  request: HttpRequest,
  deps: RouteDeps,
): Promise<HttpResponse | undefined> {
  const [head, ...rest] = segments;
  const by = callerOf(request, deps.apiToken);
  if (request.method === 'POST' && head === 'rollouts' && rest.length === 2 && ACTIONS.has(rest[1] ?? ''))
    return rolloutAction(rest[0] ?? '', rest[1] ?? '', by, request, deps);
  if (request.method === 'POST' && head === 'freezes' && rest.length === 0)
    return createFreeze(by, request, deps.control);
  if (request.method === 'DELETE' && head === 'freezes' && rest.length === 1)
    return removeFreeze(rest[0] ?? '', deps.control);
  if (request.method === 'POST' && head === 'unpin' && rest.length === 0) return unpin(request, deps.control);
  return undefined;
}

/** `GET /freezes`: the freezes in force. */
export async function listFreezes(control: ControlApiDeps): Promise<HttpResponse> {
  return json(200, { items: await control.freezes.list(control.clock.now()) });
}

async function rolloutAction(
  rawSha: string,
  action: string,
  by: string,
  request: HttpRequest,
  deps: RouteDeps,
): Promise<HttpResponse> {
  const body = objectBody(request);
  const sha = await resolveSha(rawSha, deps.index);
  const { control } = deps.control;
  let outcome: ControlOutcome;
  if (action === 'pause' || action === 'abort') onlyFields(body, [], action);
  if (action === 'pause') outcome = await control.pause(sha, by);
  else if (action === 'abort') outcome = await control.abort(sha, by);
  else if (action === 'resume') outcome = await control.resume(sha, by, resumeOptions(body));
  else outcome = await control.retry(sha, by, retryFilter(body));
  if (outcome.kind === 'not-found') throw new NotFoundError(`no rollout for commit ${sha}`);
  if (outcome.kind === 'conflict') return json(409, { error: outcome.error });
  return json(200, rolloutJson(await findRollout(sha, deps)));
}

/** The request's JSON object body; an empty body is `{}`. */
function objectBody(request: HttpRequest): Record<string, unknown> {
  const text = request.body.toString('utf8').trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError('the body is not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new BadRequestError('the body must be a JSON object');
  return value as Record<string, unknown>;
}

function onlyFields(body: Record<string, unknown>, allowed: readonly string[], route: string): void {
  const extra = Object.keys(body).filter((key) => !allowed.includes(key));
  if (extra.length > 0)
    throw new BadRequestError(
      `${route} takes ${allowed.length === 0 ? 'no fields' : allowed.join(', ')}; unknown: ${extra.join(', ')}`,
    );
}

function resumeOptions(body: Record<string, unknown>): { skipFailed?: boolean } {
  onlyFields(body, ['skipFailed'], 'resume');
  if (body.skipFailed !== undefined && typeof body.skipFailed !== 'boolean')
    throw new BadRequestError('skipFailed must be true or false');
  return body.skipFailed === true ? { skipFailed: true } : {};
}

function retryFilter(body: Record<string, unknown>): { cluster?: string; namespace?: string; name?: string } {
  onlyFields(body, ['cluster', 'namespace', 'name'], 'retry');
  const only: Record<string, string> = {};
  for (const field of ['cluster', 'namespace', 'name'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !NAME.test(value))
      throw new BadRequestError(`${field} must be a Kubernetes name`);
    only[field] = value;
  }
  return only;
}

async function createFreeze(
  by: string,
  request: HttpRequest,
  control: ControlApiDeps,
): Promise<HttpResponse> {
  const body = objectBody(request);
  const freeze = freezeFromRequest(body, {
    fleet: await control.freezeFleet(),
    now: control.clock.now(),
    by,
  });
  await control.freezes.create(freeze);
  return json(201, freeze);
}

async function removeFreeze(id: string, control: ControlApiDeps): Promise<HttpResponse> {
  if (!FREEZE_ID.test(id)) throw new BadRequestError('a freeze id is letters, digits and -');
  if (!(await control.freezes.remove(id))) throw new NotFoundError(`no freeze ${id}`);
  return { statusCode: 204, headers: { 'cache-control': 'no-store' }, body: '' };
}

async function unpin(request: HttpRequest, control: ControlApiDeps): Promise<HttpResponse> {
  const body = objectBody(request);
  onlyFields(body, ['repo'], 'unpin');
  const repo = body.repo;
  if (repo !== undefined && (typeof repo !== 'string' || repo === '' || repo.length > 512))
    throw new BadRequestError('repo must be owner/name or a repository URL');
  if (control.unpin === undefined) return json(409, { error: 'pinning is not enabled' });
  const key = repo === undefined ? undefined : repoKey(repo, (await control.freezeFleet()).repositories);
  // The fanout function restores the pins (the API reaches no cluster): accepted, done in seconds.
  return json(202, { ...(await control.unpin(key)), ...(key === undefined ? {} : { repo: key }) });
}
