import {
  fail,
  optionalRecord,
  optionalString,
  type Parsed,
  parseObject,
  readMeta,
  record,
  requiredString,
} from '../matching/raw-object.js';
import { canonicalRepoKey } from '../matching/repo-url.js';
import type { PushedRef } from '../matching/revision.js';
import { parseConstraints, satisfies } from '../matching/semver.js';
import { parseVersion, type SemVersion } from '../matching/semver-version.js';

/** `spec.ref` of a Flux GitRepository; every field optional, as in the CRD. */
export interface FluxGitRef {
  readonly branch?: string;
  readonly tag?: string;
  readonly semver?: string;
  /** A full ref: `refs/heads/main`, `refs/tags/v1.0.0`, `refs/pull/1/head`. */
  readonly name?: string;
  readonly commit?: string;
}

export interface GitRepository {
  readonly namespace: string;
  readonly name: string;
  readonly url: string;
  readonly repoKey: string;
  readonly ref: FluxGitRef;
}

/** source-controller clones `master` when no ref field is set. */
export const FLUX_DEFAULT_BRANCH = 'master';
const REF_FIELDS = ['branch', 'tag', 'semver', 'name', 'commit'] as const;

/** A Flux GitRepository from a cluster; never throws. */
export function parseGitRepository(raw: unknown): Parsed<GitRepository> {
  return parseObject(() => {
    const meta = readMeta(raw);
    const spec = record(record(raw, 'object').spec, 'spec');
    const url = requiredString(spec.url, 'spec.url');
    const repoKey = canonicalRepoKey(url);
    if (repoKey === undefined) fail('spec.url is not a Git repository URL');
    const rawRef = optionalRecord(spec.ref, 'spec.ref') ?? {};
    const ref: Record<string, string> = {};
    for (const field of REF_FIELDS) {
      const value = optionalString(rawRef[field], `spec.ref.${field}`);
      if (value) ref[field] = value;
    }
    return { namespace: meta.namespace, name: meta.name, url, repoKey, ref };
  });
}

/** fluxcd/pkg `version.ParseVersion`: Masterminds, but only tags with three dot-separated parts. */
function fluxTagVersion(tag: string): SemVersion | undefined {
  return tag.split('.').length >= 3 ? parseVersion(tag) : undefined;
}

function semverMatches(constraint: string, tag: string): boolean {
  const constraints = parseConstraints(constraint);
  const version = constraints && fluxTagVersion(tag);
  return constraints !== undefined && version !== undefined && satisfies(constraints, version);
}

/**
 * Whether this push can move what the GitRepository checks out. Precedence as source-controller's clone:
 * `commit` (never moves), `name`, then `tag`/`semver` (tag pushes; either may decide, since the docs and
 * the code disagree on which wins), then `branch` (default `master`).
 */
export function fluxRefMatches(ref: FluxGitRef, push: PushedRef): boolean {
  if (ref.commit) return false;
  const pushedRef = `refs/${push.refType === 'branch' ? 'heads' : 'tags'}/${push.refName}`;
  if (ref.name) return ref.name === pushedRef;
  if (ref.tag || ref.semver) {
    if (push.refType !== 'tag') return false;
    return ref.tag === push.refName || (ref.semver !== undefined && semverMatches(ref.semver, push.refName));
  }
  return push.refType === 'branch' && push.refName === (ref.branch ?? FLUX_DEFAULT_BRANCH);
}
