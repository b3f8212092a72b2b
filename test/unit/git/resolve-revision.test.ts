import { describe, expect, it } from 'vitest';
import { compareVersions, resolveRevision, type SemverCheck } from '../../../lib/git/resolve-revision.js';

const sha = (c: string) => c.repeat(40);

/** A stand-in for the Masterminds-compatible check the matching module provides. */
const simpleSemver: SemverCheck = (constraint, version) => {
  const v = version.replace(/^v/, '');
  if (!/^\d+(\.\d+){0,2}(-[\w.]+)?$/.test(v)) return false;
  if (v.includes('-') && !constraint.includes('-')) return false;
  if (constraint === '*') return true;
  const match = /^(\^|~|>=)?v?(\d+(?:\.\d+){0,2})$/.exec(constraint);
  if (match === null) return false;
  const [, op, base = ''] = match;
  const [major, minor] = base.split('.');
  const [vMajor, vMinor] = v.split('.');
  const atLeast = compareVersions(v, base) >= 0;
  if (op === '^') return vMajor === major && atLeast;
  if (op === '~') return vMajor === major && (minor === undefined || vMinor === minor) && atLeast;
  if (op === '>=') return atLeast;
  return compareVersions(v, base) === 0;
};

const remote = {
  head: 'refs/heads/main',
  refs: new Map([
    ['refs/heads/main', sha('a')],
    ['refs/heads/release/1.0', sha('b')],
    ['refs/heads/v2.0.0', sha('c')],
    ['refs/tags/v1.0.0', sha('1')],
    ['refs/tags/v1.2.0', sha('2')],
    ['refs/tags/1.10.0', sha('3')],
    ['refs/tags/v2.0.0', sha('4')],
    ['refs/tags/v2.1.0-rc.1', sha('5')],
    ['refs/tags/stable', sha('6')],
    ['refs/tags/main', sha('7')],
  ]),
};

describe('resolveRevision', () => {
  it.each([
    ['HEAD is the default branch', 'HEAD', sha('a'), 'refs/heads/main'],
    ['an empty revision is the default branch', '', sha('a'), 'refs/heads/main'],
    ['origin/HEAD is the default branch', 'origin/HEAD', sha('a'), 'refs/heads/main'],
    ['a branch name with a slash is that branch', 'release/1.0', sha('b'), 'refs/heads/release/1.0'],
    ['a qualified branch is that branch', 'refs/heads/main', sha('a'), 'refs/heads/main'],
    [
      'a qualified tag is that tag, even when a branch has its name',
      'refs/tags/main',
      sha('7'),
      'refs/tags/main',
    ],
    ['an unqualified name held by a branch and a tag is the branch', 'main', sha('a'), 'refs/heads/main'],
    ['a plain tag name is that tag', 'stable', sha('6'), 'refs/tags/stable'],
    ['a caret constraint is the highest tag within the major', '^1.0.0', sha('3'), 'refs/tags/1.10.0'],
    ['a tilde constraint stays within the minor', '~1.2', sha('2'), 'refs/tags/v1.2.0'],
    ['a star is the highest release, never a prerelease', '*', sha('4'), 'refs/tags/v2.0.0'],
    ['an exact version finds the tag with a v prefix', '1.2.0', sha('2'), 'refs/tags/v1.2.0'],
  ])('%s', (_name, revision, expectedSha, expectedRef) => {
    const resolved = resolveRevision(remote, revision, simpleSemver);
    expect(resolved).toMatchObject({ found: true, sha: expectedSha, ref: expectedRef });
  });

  it('resolves a semver-looking branch by name when no semver check is given', () => {
    expect(resolveRevision(remote, 'v2.0.0')).toMatchObject({ found: true, sha: sha('c'), via: 'ref' });
  });

  it('takes a full commit SHA as itself, with no ref, since a commit never moves', () => {
    expect(resolveRevision(remote, sha('E'))).toEqual({ found: true, sha: sha('e'), via: 'commit' });
  });

  it('expands an abbreviated SHA when a ref tip starts with it', () => {
    expect(resolveRevision(remote, 'bbbbbbb')).toEqual({ found: true, sha: sha('b'), via: 'commit' });
  });

  it.each([
    ['a branch that does not exist', 'feature/x'],
    ['a name that differs only in case', 'Main'],
    ['a qualified ref that does not exist', 'refs/heads/gone'],
    ['a constraint no tag satisfies', '^9.0.0'],
  ])('does not resolve %s', (_name, revision) => {
    expect(resolveRevision(remote, revision, simpleSemver)).toEqual({
      found: false,
      reason: 'unknown-revision',
    });
  });

  it('reports a missing default branch for HEAD on an empty repository', () => {
    expect(resolveRevision({ refs: new Map() }, 'HEAD')).toEqual({
      found: false,
      reason: 'no-default-branch',
    });
  });
});

describe('compareVersions', () => {
  it.each([
    ['a higher minor ranks higher than a longer string', '1.10.0', '1.9.0', 1],
    ['a v prefix is ignored', 'v1.2.0', '1.2.0', 0],
    ['a missing patch counts as zero', '1.2', '1.2.0', 0],
    ['a release ranks above its prerelease', '2.0.0', '2.0.0-rc.1', 1],
    ['numeric prerelease parts compare as numbers', '1.0.0-rc.10', '1.0.0-rc.9', 1],
    ['build metadata is ignored', '1.0.0+build.5', '1.0.0', 0],
  ])('%s', (_name, a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
  });
});
