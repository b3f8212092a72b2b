import { describe, expect, it } from 'vitest';
import { compileGlob, pathMatches } from '../../../lib/matching/glob.js';

describe('globs a backtracking engine would take exponential time on', () => {
  const as = 'a'.repeat(60);
  const longName = `apps/team/${'x-'.repeat(40)}x.yml`;

  it.each([
    ['eight stars before a b that never comes', '*a*a*a*a*a*a*a*a*b', as, false],
    ['eight stars and the b at the end', '*a*a*a*a*a*a*a*a*b', `${as}b`, true],
    [
      '** and seven stars against a long name with the wrong suffix',
      'apps/**/*-*-*-*-*-*-*.yaml',
      longName,
      false,
    ],
    [
      '** and seven stars against a long name that matches',
      'apps/**/*-*-*-*-*-*-*.yaml',
      longName.replace(/\.yml$/, '.yaml'),
      true,
    ],
    ['nested alternatives that all match the same letter', `${'{a,a}'.repeat(30)}b`, 'a'.repeat(30), false],
    [
      '** repeated across a deep path without the file',
      `${'**/'.repeat(12)}x.yaml`,
      `${'d/'.repeat(40)}y.yaml`,
      false,
    ],
    [
      '** repeated across a deep path with the file',
      `${'**/'.repeat(12)}x.yaml`,
      `${'d/'.repeat(40)}x.yaml`,
      true,
    ],
  ])('%s', (_name, pattern, path, expected) => {
    expect(pathMatches(pattern, path)).toBe(expected);
  });
});

describe('globs with several stars or alternatives keep the segment rules', () => {
  it.each([
    ['**/*.yaml matches a file at any depth', 'apps/**/*.yaml', 'apps/a/b/c.yaml', true],
    ['**/*.yaml matches a file right below', 'apps/**/*.yaml', 'apps/c.yaml', true],
    ['**/*.yaml needs the suffix', 'apps/**/*.yaml', 'apps/a/c.yml', false],
    ['*-* stays within one segment', 'apps/*-*', 'apps/a/-b', false],
    ['*-* within a segment', 'apps/*-*', 'apps/a-b', true],
    ['a mid-segment ** crosses segments', 'apps/a**b', 'apps/a/x/b', true],
    ['alternatives with a star', 'apps/{web,api}/**/*.yaml', 'apps/api/x/y.yaml', true],
    ['alternatives are whole', 'apps/{web,api}/**/*.yaml', 'apps/webapi/y.yaml', false],
    ['an empty alternative', 'apps/web{,-v2}/*', 'apps/web-v2/a', true],
    ['a negated class never matches a slash', 'apps/*[!x]*', 'apps/a/b', false],
    ['a class after two stars', 'a*b*[0-9]', 'axxbyy7', true],
    ['? does not match a slash after a star', 'a*?*c', 'a/c', false],
    ['matching is case-sensitive', 'apps/**/*.yaml', 'Apps/a/b.yaml', false],
    ['an escaped star is literal', 'a*\\*', 'ab*', true],
    ['an escaped star is not a star', 'a*\\*', 'abc', false],
    ['an escaped letter in a class is that letter, not a regexp class', 'v[\\d]', 'vd', true],
    ['an escaped letter in a class does not match digits', 'v[\\d]', 'v1', false],
  ])('%s', (_name, pattern, path, expected) => {
    expect(pathMatches(pattern, path)).toBe(expected);
  });

  it('compiles each pattern once and answers malformed ones as never matching', () => {
    expect(compileGlob('apps/**/*.yaml')).toBe(compileGlob('apps/**/*.yaml'));
    expect(compileGlob('apps/{a,b/**/*')).toBeUndefined();
    expect(compileGlob('a*b*[z-a]')).toBeUndefined();
    expect(compileGlob('apps/web')).toBeUndefined();
  });
});
