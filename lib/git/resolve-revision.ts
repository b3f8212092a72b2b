/** `true` when `version` (a tag name such as `v1.2.3`) satisfies the semver `constraint`; false if either is invalid. */
export type SemverCheck = (constraint: string, version: string) => boolean;

export type ResolvedRevision =
  | {
      readonly found: true;
      readonly sha: string;
      /** The ref it came from; absent for a commit SHA, which never moves. */
      readonly ref?: string;
      readonly via: 'default-branch' | 'ref' | 'semver' | 'commit';
    }
  | { readonly found: false; readonly reason: 'no-default-branch' | 'unknown-revision' };

interface RefsView {
  readonly refs: ReadonlyMap<string, string>;
  readonly head?: string;
}

const FULL_SHA = /^[0-9a-f]{40}$/i;
const SHORT_SHA = /^[0-9a-f]{7,39}$/i;
const HEAD_NAMES = new Set(['', 'HEAD', 'origin/HEAD']);

/**
 * What commit a `targetRevision` names now, in Argo CD's order (`util/git/client.go` lsRemote): a full
 * SHA is itself; HEAD/empty is the default branch; a semver constraint is the highest matching tag; then a
 * branch or tag by exact (case-sensitive) name, a branch winning over a tag of the same name; then an
 * abbreviated SHA is itself (expanded when a ref tip starts with it).
 */
export function resolveRevision(
  remote: RefsView,
  targetRevision: string | undefined,
  semver?: SemverCheck,
): ResolvedRevision {
  const revision = (targetRevision ?? '').trim();
  if (FULL_SHA.test(revision)) return { found: true, sha: revision.toLowerCase(), via: 'commit' };
  if (HEAD_NAMES.has(revision)) {
    const sha = remote.head === undefined ? undefined : remote.refs.get(remote.head);
    if (remote.head === undefined || sha === undefined) return { found: false, reason: 'no-default-branch' };
    return { found: true, sha, ref: remote.head, via: 'default-branch' };
  }
  if (revision.startsWith('refs/')) {
    const sha = remote.refs.get(revision);
    return sha === undefined
      ? { found: false, reason: 'unknown-revision' }
      : { found: true, sha, ref: revision, via: 'ref' };
  }
  const bySemver = semver === undefined ? undefined : highestMatchingTag(remote.refs, revision, semver);
  if (bySemver !== undefined) return { found: true, ...bySemver, via: 'semver' };
  for (const ref of [`refs/heads/${revision}`, `refs/tags/${revision}`]) {
    const sha = remote.refs.get(ref);
    if (sha !== undefined) return { found: true, sha, ref, via: 'ref' };
  }
  if (SHORT_SHA.test(revision)) {
    const lower = revision.toLowerCase();
    const tip = [...remote.refs.values()].find((sha) => sha.startsWith(lower));
    return { found: true, sha: tip ?? lower, via: 'commit' };
  }
  return { found: false, reason: 'unknown-revision' };
}

function highestMatchingTag(
  refs: ReadonlyMap<string, string>,
  constraint: string,
  semver: SemverCheck,
): { sha: string; ref: string } | undefined {
  let best: { sha: string; ref: string; version: string } | undefined;
  for (const [ref, sha] of refs) {
    if (!ref.startsWith('refs/tags/')) continue;
    const version = ref.slice('refs/tags/'.length);
    if (parseVersion(version) === undefined || !semver(constraint, version)) continue;
    if (best === undefined || compareVersions(version, best.version) > 0) best = { sha, ref, version };
  }
  return best === undefined ? undefined : { sha: best.sha, ref: best.ref };
}

interface Version {
  readonly core: readonly [number, number, number];
  readonly pre: readonly string[];
}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text);
  if (match === null) return undefined;
  const [, major = '0', minor = '0', patch = '0', pre] = match;
  return {
    core: [Number(major), Number(minor), Number(patch)],
    pre: pre === undefined ? [] : pre.split('.'),
  };
}

/** Semver precedence of two version-like tag names (`v` prefix and missing parts coerced); build metadata ignored. */
export function compareVersions(a: string, b: string): number {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (left === undefined || right === undefined) return left === right ? 0 : left === undefined ? -1 : 1;
  for (let i = 0; i < 3; i++) {
    const diff = (left.core[i] ?? 0) - (right.core[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  // A release ranks above its prereleases.
  if (left.pre.length === 0 || right.pre.length === 0) return Math.sign(right.pre.length - left.pre.length);
  for (let i = 0; i < Math.max(left.pre.length, right.pre.length); i++) {
    const x = left.pre[i];
    const y = right.pre[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) return Math.sign(Number(x) - Number(y));
    if (xNum !== yNum) return xNum ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
