import { describe, expect, it } from 'vitest';
import { isCommitSha, type PushedRef, revisionMatches } from '../../../lib/matching/revision.js';

const branch = (refName: string, touchedDefaultBranch = false): PushedRef => ({
  refType: 'branch',
  refName,
  touchedDefaultBranch,
});
const tag = (refName: string, touchedDefaultBranch = false): PushedRef => ({
  refType: 'tag',
  refName,
  touchedDefaultBranch,
});
const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('revisionMatches', () => {
  it.each([
    ['HEAD follows a push to the default branch', 'HEAD', branch('main', true), true],
    ['HEAD ignores a push to another branch', 'HEAD', branch('feature', false), false],
    ['an empty targetRevision follows the default branch', '', branch('main', true), true],
    ['origin/HEAD follows the default branch', 'origin/HEAD', branch('trunk', true), true],
    ['refs/heads/HEAD follows the default branch', 'refs/heads/HEAD', branch('main', true), true],
    [
      'differs from Argo CD: a tag named like the default branch is not HEAD',
      'HEAD',
      tag('main', true),
      false,
    ],
    ['differs from Argo CD: a/b/HEAD is not HEAD', 'a/b/HEAD', branch('main', true), false],
    ['a/b/HEAD follows a branch of exactly that name', 'a/b/HEAD', branch('a/b/HEAD'), true],
    ['an exact branch name matches', 'main', branch('main', true), true],
    ['an exact branch name matches off the default branch', 'develop', branch('develop'), true],
    ['names are case-sensitive', 'Main', branch('main', true), false],
    ['a branch with slashes matches', 'release/1.0', branch('release/1.0'), true],
    ['a longer name does not match its last part', 'three/part/rev', branch('rev'), false],
    [
      'differs from Argo CD ApplicationSets: release/v1 is not refreshed by branch v1',
      'release/v1',
      branch('v1'),
      false,
    ],
    ['an unqualified name matches a tag push', 'v1.0.0', tag('v1.0.0'), true],
    ['an unqualified name matches a branch push', 'v1.0', branch('v1.0'), true],
    ['refs/heads/X matches a branch push of X', 'refs/heads/main', branch('main', true), true],
    ['refs/heads/ keeps slashes in the name', 'refs/heads/a/b/c', branch('a/b/c'), true],
    ['differs from Argo CD: refs/heads/X ignores a tag push of X', 'refs/heads/v1', tag('v1'), false],
    ['refs/tags/X matches a tag push of X', 'refs/tags/v1', tag('v1'), true],
    ['differs from Argo CD: refs/tags/X ignores a branch push of X', 'refs/tags/v1', branch('v1'), false],
    ['refs/tags/ with a constraint matches a tag push', 'refs/tags/^1.0.0', tag('v1.4.0'), true],
    ['refs/remotes/origin/main never matches', 'refs/remotes/origin/main', branch('main', true), false],
    ['a semver constraint matches a version-like tag', '^1.2.0', tag('v1.9.0'), true],
    ['a semver constraint excludes the next major', '^1.2.0', tag('v2.0.0'), false],
    ['a semver constraint matches a version-like branch', '>=1.0.0', branch('1.5'), true],
    ['a semver constraint ignores prereleases', '>=1.0.0', tag('2.0.0-rc1'), false],
    ['a constraint naming a prerelease lets them in', '>=1.0.0-0', tag('2.0.0-rc1'), true],
    ['* matches any version-like push', '*', tag('v3.1.4'), true],
    ['* does not match a branch that is not a version', '*', branch('main', true), false],
    ['a version matches its v-prefixed tag', '1.0.0', tag('v1.0.0'), true],
    ['a partial version is a wildcard', '1.2', tag('1.2.9'), true],
    ['a full commit SHA never matches', SHA, branch('main', true), false],
    ['a full commit SHA never matches even a branch of that name', SHA, branch(SHA), false],
    ['a short hex SHA never matches', 'abc1234', branch('abc1234'), false],
    ['a 64-hex SHA-256 id never matches', `${SHA}${SHA.slice(0, 24)}`, branch('main', true), false],
    ['an all-digit short SHA still acts as a version constraint', '1234567', tag('v1234567'), true],
    [
      'a branch explicitly named like a SHA matches through refs/heads/',
      'refs/heads/abc1234',
      branch('abc1234'),
      true,
    ],
  ])('%s', (_name, target, push, expected) => {
    expect(revisionMatches(target, push)).toBe(expected);
  });
});

describe('isCommitSha', () => {
  it.each([
    ['a 40-hex id', SHA, true],
    ['an uppercase 40-hex id', SHA.toUpperCase(), true],
    ['a 7-hex abbreviation', 'deadbee', true],
    ['six hex characters', 'deadbe', false],
    ['an all-digit abbreviation (a valid version too)', '1234567', false],
    ['a branch name', 'main', false],
  ])('treats %s as a commit: %s', (_name, text, expected) => {
    expect(isCommitSha(text)).toBe(expected);
  });
});
