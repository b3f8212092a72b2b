import type { RefType } from '../webhook/push-event.js';
import { constraintMatches } from './semver.js';

/** The parts of a push that decide whether a `targetRevision` follows it. */
export interface PushedRef {
  readonly refType: RefType;
  /** Short name: `main`, `release/1.0`, `v1.2.0`. */
  readonly refName: string;
  /** A branch push to the repository's default branch. */
  readonly touchedDefaultBranch: boolean;
}

// Argo CD keeps only the last part of `strings.SplitN(rev, "/", 3)`, so `a/b/HEAD` also means HEAD there;
// we differ on purpose: only these spellings name the remote's default branch.
const HEAD_ALIASES = new Set(['', 'HEAD', 'origin/HEAD']);
const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const SHORT_SHA = /^[0-9a-f]{7,}$/i;

/**
 * A commit id never moves, so a push never changes what it points at. All-digit short ids (`1234567`)
 * stay constraints because Masterminds reads them as versions (`1234567` matches tag `v1234567`).
 */
export function isCommitSha(revision: string): boolean {
  return FULL_SHA.test(revision) || (SHORT_SHA.test(revision) && /[a-f]/i.test(revision));
}

/** Exact (case-sensitive) name, or a Masterminds semver constraint the pushed name satisfies. */
export function nameMatches(target: string, pushedName: string): boolean {
  return target === pushedName || constraintMatches(target, pushedName);
}

function headMatches(push: PushedRef): boolean {
  // Tags never move the default branch, even one named like it (Argo CD counts such a tag as HEAD).
  return push.refType === 'branch' && push.touchedDefaultBranch;
}

/**
 * Whether an Argo CD `targetRevision` (or an ApplicationSet git generator `revision`) follows this push.
 * Unlike Argo CD, `refs/heads/X` only follows branch pushes and `refs/tags/X` only tag pushes.
 */
export function revisionMatches(targetRevision: string, push: PushedRef): boolean {
  if (HEAD_ALIASES.has(targetRevision)) return headMatches(push);
  if (targetRevision.startsWith(BRANCH_PREFIX)) {
    const name = targetRevision.slice(BRANCH_PREFIX.length);
    if (push.refType !== 'branch') return false;
    return name === 'HEAD' ? headMatches(push) : nameMatches(name, push.refName);
  }
  if (targetRevision.startsWith(TAG_PREFIX)) {
    return push.refType === 'tag' && nameMatches(targetRevision.slice(TAG_PREFIX.length), push.refName);
  }
  if (isCommitSha(targetRevision)) return false;
  return nameMatches(targetRevision, push.refName);
}
