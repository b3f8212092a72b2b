import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../errors.js';
import { ociSourceKey } from '../matching/oci-source.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import type { Freeze } from '../rollouts/rollout-model.js';
import { CLUSTER_PATTERN, clusterGlobMatches } from './cluster-glob.js';

/** What a freeze is checked against: the fleet's cluster names and repository URLs. */
export interface FreezeFleet {
  readonly clusters: readonly string[];
  readonly repositories: readonly string[];
}

const FIELDS = new Set(['repo', 'cluster', 'reason', 'until']);
const MAX_REASON = 500;
const OWNER_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * `POST /freezes`' body as a freeze: `repo` as `owner/name` (a repository of the fleet) or any URL form,
 * stored as its canonical key; `cluster` a fleet name or glob selecting at least one fleet cluster;
 * `reason` required; `until` an ISO time in the future. Anything else is a 400 naming the problem.
 */
export function freezeFromRequest(
  body: unknown,
  context: { fleet: FreezeFleet; now: Date; by: string; id?: string },
): Freeze {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequestError('the body must be a JSON object {"repo"?, "cluster"?, "reason", "until"?}');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) throw new BadRequestError(`unknown field ${unknown.join(', ')}`);
  const reason = fields.reason;
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON)
    throw new BadRequestError(`reason is required: 1 to ${MAX_REASON} characters`);
  const repo = optionalString(fields, 'repo');
  const cluster = optionalString(fields, 'cluster');
  const until = optionalString(fields, 'until');
  return {
    id: context.id ?? randomUUID(),
    ...(repo === undefined ? {} : { repo: repoKey(repo, context.fleet.repositories) }),
    ...(cluster === undefined ? {} : { cluster: clusterOf(cluster, context.fleet.clusters) }),
    reason: reason.trim(),
    ...(until === undefined ? {} : { until: untilOf(until, context.now) }),
    by: context.by,
    at: context.now.toISOString(),
  };
}

function optionalString(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > 512)
    throw new BadRequestError(`${name} must be a string of 1 to 512 characters`);
  return value;
}

/**
 * `owner/name` is looked up among the fleet's repositories (its host is theirs); a URL names its own; an
 * image repository `oci://<host>/<path>` is keyed `<host>/<path>`, as its registry pushes are.
 */
export function repoKey(repo: string, repositories: readonly string[]): string {
  if (OWNER_NAME.test(repo)) {
    const suffix = `/${repo.toLowerCase().replace(/\.git$/, '')}`;
    const keys = new Set(
      repositories.flatMap((url) => {
        const key = canonicalRepoKey(url);
        return key?.endsWith(suffix) ? [key] : [];
      }),
    );
    if (keys.size === 1) return [...keys][0] as string;
    if (keys.size > 1)
      throw new BadRequestError(`repo ${repo} is ambiguous: ${[...keys].sort().join(', ')}; give its URL`);
    throw new BadRequestError(`repo ${repo} is no repository of the fleet; give its URL`);
  }
  const key = /^\s*oci:/i.test(repo) ? ociSourceKey(repo, undefined) : canonicalRepoKey(repo);
  // Never echo a URL back: it may carry a token.
  if (key === undefined)
    throw new BadRequestError(
      'repo must be owner/name, a Git repository URL or an image repository oci://<host>/<path>',
    );
  return key;
}

function clusterOf(cluster: string, clusters: readonly string[]): string {
  if (!CLUSTER_PATTERN.test(cluster))
    throw new BadRequestError('cluster must be a fleet cluster name or a glob of one (*, ?)');
  if (!clusters.some((name) => clusterGlobMatches(cluster, name)))
    throw new BadRequestError(`cluster ${cluster} selects no cluster of the fleet`);
  return cluster;
}

function untilOf(until: string, now: Date): string {
  const time = ISO_TIME.test(until) ? Date.parse(until) : Number.NaN;
  if (Number.isNaN(time))
    throw new BadRequestError('until must be an ISO 8601 time, e.g. 2026-12-24T18:00:00Z');
  if (time <= now.getTime()) throw new BadRequestError('until must be in the future');
  return new Date(time).toISOString();
}
