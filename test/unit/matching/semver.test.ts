import { describe, expect, it } from 'vitest';
import { constraintMatches, parseConstraints } from '../../../lib/matching/semver.js';
import { compareVersions, parseVersion } from '../../../lib/matching/semver-version.js';

// Every row was checked against Masterminds/semver v3.4.0 (NewConstraint + NewVersion + Check).
describe('constraintMatches (Masterminds v3.4.0)', () => {
  it.each([
    ['an exact version matches a v-prefixed tag', '1.0.0', 'v1.0.0', true],
    ['a v-prefixed constraint matches a bare version', 'v1.0.0', '1.0.0', true],
    ['a major-only constraint with v acts as a wildcard', 'v1', '1.5.0', true],
    ['a major-only constraint acts as a wildcard', '1', '1.5.0', true],
    ['a major.minor constraint covers its patches', '1.2', '1.2.9', true],
    ['a major.minor constraint excludes the next minor', '1.2', '1.3.0', false],
    ['a caret allows the same major', '^1.2.0', '1.9.0', true],
    ['a caret excludes the next major', '^1.2.0', '2.0.0', false],
    ['a tilde allows the same minor', '~1.2.0', '1.2.7', true],
    ['a tilde excludes the next minor', '~1.2.0', '1.3.0', false],
    ['>= coerces a two-part pushed name', '>=1.0.0', '1.5', true],
    ['>= leaves prereleases out', '>=1.0.0', '2.0.0-rc1', false],
    ['a constraint naming a prerelease lets prereleases in', '>=1.0.0-0', '2.0.0-rc1', true],
    ['* matches any release', '*', '3.4.5', true],
    ['x matches any release', 'x', 'v0.0.1', true],
    ['* leaves prereleases out', '*', '1.0.0-rc1', false],
    ['build metadata is ignored', '1.0.0', '1.0.0+build.5', true],
    ['an all-digit sha-like constraint matches a version push', '1234567', '1234567.0.0', true],
    ['an all-digit sha-like constraint matches a v-prefixed tag', '1234567', 'v1234567', true],
    ['comma-separated constraints are ANDed (inside)', '>= 1.2, < 2.0', '1.5.0', true],
    ['comma-separated constraints are ANDed (outside)', '>= 1.2, < 2.0', '2.0.0', false],
    ['space-separated constraints are ANDed', '>=1.2 <2.0', '1.9.9', true],
    ['a hyphen range includes its upper end', '1.0.0 - 2.0.0', '2.0.0', true],
    ['a hyphen range excludes past its upper end', '1.0.0 - 2.0.0', '2.0.1', false],
    ['a partial hyphen range upper end is a wildcard', '1 - 2', '2.9.9', true],
    ['|| alternatives match either side', '^1.2 || ^3.0', '3.1.0', true],
    ['|| alternatives match neither side', '^1.2 || ^3.0', '2.1.0', false],
    ['1.x covers the major', '1.x', '1.7.0', true],
    ['1.x excludes the next major', '1.x', '2.0.0', false],
    ['1.2.x covers the patches', '1.2.x', '1.2.30', true],
    ['!= excludes the exact version', '!=1.2.3', '1.2.3', false],
    ['!= with a wildcard allows other minors', '!=1.2.x', '1.3.0', true],
    ['>1 needs the next major', '>1', '1.9.0', false],
    ['>1 is met by the next major', '>1', '2.0.0', true],
    ['>1.2 needs the next minor', '>1.2', '1.2.9', false],
    ['<=1.2 includes its patches', '<=1.2', '1.2.9', true],
    ['<=1.2 excludes the next minor', '<=1.2', '1.3.0', false],
    ['a 0.x caret stays within the minor', '^0.2.3', '0.2.9', true],
    ['a 0.x caret excludes the next minor', '^0.2.3', '0.3.0', false],
    ['a 0.0.x caret is exact', '^0.0.3', '0.0.4', false],
    ['a tilde with a prerelease allows later prereleases', '~1.2.3-beta', '1.2.3-beta.2', true],
    ['a tilde with a prerelease allows later releases', '~1.2.3-beta', '1.2.4', true],
    ['prerelease numbers compare numerically', '>1.2.3-beta.2', '1.2.3-beta.10', true],
    ['numeric prerelease parts sort before alphanumeric ones', '>1.2.3-alpha', '1.2.3-1', false],
    ['leading zeros are coerced in constraints', '01.2.3', '1.2.3', true],
    ['leading zeros are coerced in versions', '1.2.3', '01.02.03', true],
    ['~> is a tilde', '~>1.2', '1.2.5', true],
    ['=> is >=', '=>1.0', '1.0.0', true],
    ['a v-prefixed wildcard', 'v1.x', 'v1.2.0', true],
  ])('%s: %s vs %s', (_name, constraint, version, expected) => {
    expect(constraintMatches(constraint, version)).toBe(expected);
  });

  it.each([
    ['a branch name', 'main'],
    ['an uppercase V', 'V1.0.0'],
    ['four version parts', '1.2.3.4'],
    ['a doubled operator', '==1.0.0'],
    ['an empty alternative', '^1.0 ||'],
    ['a trailing comma', '1.0,'],
    ['an overlong text', `${'1.2 '.repeat(80)}!`],
    ['a crafted text that would make a backtracking regexp explode', `${'1.2  '.repeat(50)}!`],
  ])('rejects %s as a constraint', (_name, text) => {
    expect(parseConstraints(text)).toBeUndefined();
  });

  it.each([
    ['a branch name', 'main'],
    ['an uppercase V', 'V1.0.0'],
    ['a prerelease number with a leading zero', '1.0.0-01'],
    ['a segment beyond 64 bits', '18446744073709551616.0.0'],
  ])('does not read %s as a version', (_name, text) => {
    expect(parseVersion(text)).toBeUndefined();
    expect(constraintMatches('*', text)).toBe(false);
  });

  it('orders releases after their prereleases and ignores metadata', () => {
    const v = (text: string) => parseVersion(text) ?? expect.fail(`${text} should parse`);
    expect(compareVersions(v('1.0.0-rc.1'), v('1.0.0'))).toBe(-1);
    expect(compareVersions(v('1.0.0+a'), v('1.0.0+b'))).toBe(0);
    expect(compareVersions(v('1.0.0-rc.2'), v('1.0.0-rc.10'))).toBe(-1);
    expect(compareVersions(v('1.0.0-rc'), v('1.0.0-rc.1'))).toBe(-1);
  });
});
