import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { HttpRequest } from '../http/request.js';
import { errorResponse, type HttpResponse, json } from '../http/response.js';
import type { Logger } from '../ports.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import { oidcUi } from '../ui-auth/login-routes.js';
import type { UiAccess } from '../ui-auth/ui-access.js';
import { requireBearer, requireBearerHeader } from './auth.js';
import { type ControlApiDeps, controlRoute, listFreezes } from './control-routes.js';
import type { FindingsReader } from './findings-reader.js';
import type { RolloutIndex } from './rollout-index.js';
import { findRollout, listRollouts, NAME, pageOf, resolveSha, rolloutJson } from './rollout-routes.js';
import { uiIamRefused, uiLogin, uiPage, uiUnauthorized } from './ui-routes.js';

export interface ApiDeps {
  readonly rollouts: RolloutReader;
  readonly index: RolloutIndex;
  /** Argo CD UI base URL per cluster, for the rollout page's links. */
  readonly argocdUrls?: () => Promise<Readonly<Record<string, string>>>;
  readonly findings: FindingsReader;
  readonly apiToken?: string;
  readonly health: () => Promise<Record<string, unknown>>;
  readonly logger: Logger;
  /** Who may open `/ui/*` (`UI_AUTH`); default: the API token, as the JSON API. */
  readonly uiAccess?: UiAccess;
  /** Release control: the control routes and `GET /freezes` are served only with it. */
  readonly control?: ControlApiDeps;
}

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low', 'info']);

/**
 * The read API: `GET /rollouts`, `/rollouts/{sha}`, `/apps/{cluster}/{namespace}/{name}/history`,
 * `/findings`, `/freezes`, `/healthz`, and the pages `/ui/`, `/ui/rollouts/{sha}`; with release control,
 * its routes (`control-routes.ts`).
 */
export async function handleApi(request: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  try {
    const control = deps.control;
    const acts = control !== undefined && (request.method === 'POST' || request.method === 'DELETE');
    if (request.method !== 'GET' && !acts)
      return json(405, { error: 'method-not-allowed', message: 'only GET is served' });
    const segments = request.path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeSegment);
    if (acts && control !== undefined) {
      requireBearerHeader(request.headers, deps.apiToken);
      const answer = await controlRoute(segments, request, { ...deps, control });
      if (answer !== undefined) return answer;
      throw new NotFoundError(`no route for ${request.method} ${request.path}`);
    }
    const [head, ...rest] = segments;
    if (head === 'ui') return await ui(rest, request, deps);
    // Never needs credentials (a load balancer's or an uptime check's probe).
    if (head === 'healthz' && rest.length === 0) return json(200, { status: 'ok', ...(await deps.health()) });
    requireBearer(request.headers, deps.apiToken);
    if (head === 'rollouts' && rest.length === 0) return json(200, await listRollouts(request, deps.index));
    if (head === 'rollouts' && rest.length === 1) return await rollout(rest[0] ?? '', request, deps);
    if (head === 'rollouts' && rest.length === 6 && rest[1] === 'apps' && rest[5] === 'secrets')
      return await secretChecks(rest, deps);
    if (head === 'apps' && rest.length === 4 && rest[3] === 'history')
      return await history(rest, request, deps);
    if (head === 'findings' && rest.length === 0) return await findings(request, deps);
    if (head === 'freezes' && rest.length === 0 && deps.control !== undefined)
      return await listFreezes(deps.control);
    throw new NotFoundError(`no route for GET ${request.path}`);
  } catch (error) {
    return errorResponse(error, deps.logger);
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequestError('the path is not valid percent-encoding');
  }
}

async function ui(rest: readonly string[], request: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  const access = deps.uiAccess ?? { mode: 'none' };
  // The session alone opens the pages: no API token on top.
  if (access.mode === 'oidc') return oidcUi(rest, request, access.deps, () => uiPage(rest, request, deps));
  if (access.mode === 'iam')
    return request.principal === undefined ? uiIamRefused() : uiPage(rest, request, deps);
  if (request.query.token !== undefined) return uiLogin(request, deps.apiToken);
  try {
    requireBearer(request.headers, deps.apiToken);
  } catch (error) {
    if (error instanceof UnauthorizedError) return uiUnauthorized();
    throw error;
  }
  return uiPage(rest, request, deps);
}

async function rollout(rawSha: string, request: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  const include = request.query.include;
  if (include !== undefined && include !== 'decisions')
    throw new BadRequestError('include must be decisions');
  const found = await findRollout(rawSha, deps);
  const sha = found.sha;
  // Every object whose repository matched, with why it was or was not refreshed (misses included).
  const decisionRecords =
    include === 'decisions' ? { decisionRecords: await deps.rollouts.decisions(sha) } : {};
  const feedback = (await deps.rollouts.feedback?.(sha)) ?? [];
  return json(200, {
    ...rolloutJson(found),
    ...(feedback.length > 0 ? { feedback } : {}),
    ...decisionRecords,
  });
}

/** `GET /rollouts/{sha}/apps/{cluster}/{namespace}/{name}/secrets`: every check, past the record's summary. */
async function secretChecks(rest: string[], deps: ApiDeps): Promise<HttpResponse> {
  const [rawSha = '', , cluster = '', namespace = '', name = ''] = rest;
  for (const [field, value] of [
    ['cluster', cluster],
    ['namespace', namespace],
    ['name', name],
  ] as const) {
    if (!NAME.test(value)) throw new BadRequestError(`${field} must be a Kubernetes name`);
  }
  const sha = await resolveSha(rawSha, deps.index);
  const target = { cluster, namespace, name, kind: 'Application' as const };
  const checks = await deps.rollouts.secretChecks?.(sha, target);
  if (checks === undefined)
    throw new NotFoundError(`rollout ${sha} has no record of ${cluster}/${namespace}/${name}`);
  return json(200, { sha, cluster, namespace, name, total: checks.length, checks });
}

async function history(rest: string[], request: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  const [cluster = '', namespace = '', name = ''] = rest;
  for (const [field, value] of [
    ['cluster', cluster],
    ['namespace', namespace],
    ['name', name],
  ] as const) {
    if (!NAME.test(value)) throw new BadRequestError(`${field} must be a Kubernetes name`);
  }
  const page = pageOf(request);
  const result = await deps.rollouts.history({ cluster, namespace, name }, page);
  return json(200, { cluster, namespace, name, items: result.items, nextCursor: result.nextCursor ?? null });
}

async function findings(request: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  const { cluster, severity, rule, resolved } = request.query;
  if (severity !== undefined && !SEVERITIES.has(severity)) {
    throw new BadRequestError(`severity must be one of ${[...SEVERITIES].join(', ')}`);
  }
  if (cluster !== undefined && !NAME.test(cluster))
    throw new BadRequestError('cluster must be a Kubernetes name');
  if (rule !== undefined && !/^[a-z0-9-]{1,64}$/.test(rule))
    throw new BadRequestError('rule must be a rule id');
  if (resolved !== undefined && resolved !== 'true' && resolved !== 'false') {
    throw new BadRequestError('resolved must be true or false');
  }
  const result = await deps.findings.list(
    {
      ...(cluster === undefined ? {} : { cluster }),
      ...(severity === undefined ? {} : { severity }),
      ...(rule === undefined ? {} : { rule }),
      includeResolved: resolved === 'true',
    },
    pageOf(request),
  );
  const lastPass =
    deps.findings.lastPass === undefined ? undefined : ((await deps.findings.lastPass()) ?? null);
  return json(200, {
    items: result.items,
    nextCursor: result.nextCursor ?? null,
    ...(lastPass === undefined ? {} : { lastReconcile: lastPass }),
  });
}
