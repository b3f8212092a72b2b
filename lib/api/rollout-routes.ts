import { BadRequestError, NotFoundError } from '../errors.js';
import type { HttpRequest } from '../http/request.js';
import type { AppRecord } from '../rollouts/app-model.js';
import type { RolloutReader } from '../rollouts/ports/rollout-reader.js';
import type { Rollout } from '../rollouts/rollout-model.js';
import type { RolloutFilter, RolloutIndex, RolloutList } from './rollout-index.js';

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const SHORT_SHA = /^[0-9a-f]{7,64}$/;
/** Candidates named in the 400 for an ambiguous short SHA. */
const MAX_CANDIDATES = 10;
const MAX_LIST_LIMIT = 100;
const DEFAULT_LIST_LIMIT = 20;

/** A full SHA, or the one rollout a short SHA (7+ hex characters) names: 400 when it names several. */
export async function resolveSha(raw: string, index: RolloutIndex): Promise<string> {
  const sha = raw.toLowerCase();
  if (!SHORT_SHA.test(sha)) {
    throw new BadRequestError('sha must be a commit id of 7 to 64 hexadecimal characters');
  }
  if (FULL_SHA.test(sha)) return sha;
  const candidates = await index.shasWithPrefix(sha, MAX_CANDIDATES + 1);
  if (candidates.length === 0) throw new NotFoundError(`no rollout for a commit starting with ${sha}`);
  if (candidates.length > 1) {
    const named = candidates.slice(0, MAX_CANDIDATES).join(', ');
    const more = candidates.length > MAX_CANDIDATES ? ', and more' : '';
    throw new BadRequestError(`sha ${sha} is ambiguous: ${named}${more}`, { code: 'ambiguous-sha' });
  }
  return candidates[0] as string;
}

export async function findRollout(raw: string, deps: { index: RolloutIndex; rollouts: RolloutReader }) {
  const sha = await resolveSha(raw, deps.index);
  const found: Rollout | undefined = await deps.rollouts.get(sha);
  if (found === undefined) throw new NotFoundError(`no rollout for commit ${sha}`);
  return found;
}

/** `GET /rollouts?repo=&ref=&limit=&cursor=`, newest first. */
export function listQuery(request: HttpRequest): {
  filter: RolloutFilter;
  page: { limit: number; cursor?: string };
} {
  const { repo, ref, limit: rawLimit, cursor } = request.query;
  for (const [field, value, max] of [
    ['repo', repo, 256],
    ['ref', ref, 512],
  ] as const) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    if (value !== undefined && (value === '' || value.length > max || /[\s\u0000-\u001f\u007f]/.test(value)))
      throw new BadRequestError(`${field} must be 1 to ${max} characters without spaces`);
  }
  const limit = rawLimit === undefined ? DEFAULT_LIST_LIMIT : Number(rawLimit);
  if (!/^\d+$/.test(rawLimit ?? '1') || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw new BadRequestError(`limit must be 1 to ${MAX_LIST_LIMIT}`);
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,2048}$/.test(cursor))
    throw new BadRequestError('cursor is not valid');
  return {
    filter: { ...(repo === undefined ? {} : { repo }), ...(ref === undefined ? {} : { ref }) },
    page: { limit, ...(cursor === undefined ? {} : { cursor }) },
  };
}

export async function listRollouts(request: HttpRequest, index: RolloutIndex): Promise<RolloutList> {
  const { filter, page } = listQuery(request);
  return index.list(filter, page);
}

/** A rollout as `GET /rollouts/{sha}` (and every control route) answers it: each app with its duration. */
export function rolloutJson(rollout: Rollout) {
  return { ...rollout, apps: rollout.apps.map(withDuration) };
}

function withDuration(app: AppRecord): AppRecord & { durationSeconds?: number } {
  if (app.refreshedAt === undefined || app.finishedAt === undefined) return app;
  const seconds = (Date.parse(app.finishedAt) - Date.parse(app.refreshedAt)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? { ...app, durationSeconds: Math.round(seconds) } : app;
}

/** A Kubernetes object or cluster name, as routes take them. */
export const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** `?limit=&cursor=` of a paged route, checked. */
export function pageOf(request: HttpRequest): { limit: number; cursor?: string } {
  const { limit: rawLimit, cursor } = request.query;
  const limit = rawLimit === undefined ? 50 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new BadRequestError('limit must be 1 to 500');
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,2048}$/.test(cursor))
    throw new BadRequestError('cursor is not valid');
  return { limit, ...(cursor === undefined ? {} : { cursor }) };
}
