import { describe, expect, it } from 'vitest';
import { compileGlob, pathMatches } from '../../../lib/matching/glob.js';
import { random } from './random-fleet.js';

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

/**
 * The glob rules spelt out directly (memoised, so it is fast whatever the pattern): `{x,y}` expanded first
 * (a mark at each brace, so stars either side never join), then a run of stars: `**` before `/` at a
 * segment start is "nothing, or anything ending in /", any other `**` anything, `*` anything but `/`; `?`
 * one character but `/`; `[ab]`/`[!a]` one character (never `/` when negated).
 */
const MARK = '\u0001';

function referenceMatch(pattern: string, path: string): boolean {
  const alternatives = (p: string): string[] => {
    const open = p.indexOf('{');
    if (open < 0) return [p];
    const close = p.indexOf('}', open);
    return p
      .slice(open + 1, close)
      .split(',')
      .flatMap((alt) => alternatives(`${p.slice(0, open)}${MARK}${alt}${MARK}${p.slice(close + 1)}`));
  };
  return alternatives(pattern).some((p) => {
    const memo = new Map<number, boolean>();
    const at = (i: number, j: number): boolean => {
      const key = i * 1000 + j;
      let hit = memo.get(key);
      if (hit !== undefined) return hit;
      const ch = p[i];
      let run = 0;
      while (p[i + run] === '*') run++;
      if (ch === undefined) hit = j === path.length;
      else if (ch === MARK) hit = at(i + 1, j);
      else if (run > 1 && (i === 0 || p[i - 1] === '/') && p[i + run] === '/') {
        hit = at(i + run + 1, j);
        for (let k = j; !hit && k < path.length; k++) hit = path[k] === '/' && at(i + run + 1, k + 1);
      } else if (run > 1) {
        hit = false;
        for (let k = j; !hit && k <= path.length; k++) hit = at(i + run, k);
      } else if (ch === '*') {
        hit = false;
        for (let k = j; !hit && k <= path.length && (k === j || path[k - 1] !== '/'); k++) hit = at(i + 1, k);
      } else if (ch === '[') {
        const end = p.indexOf(']', i);
        const negate = p[i + 1] === '!';
        const set = p.slice(i + (negate ? 2 : 1), end);
        const c = path[j];
        hit =
          c !== undefined && (negate ? c !== '/' && !set.includes(c) : set.includes(c)) && at(end + 1, j + 1);
      } else if (ch === '?') hit = j < path.length && path[j] !== '/' && at(i + 1, j + 1);
      else hit = path[j] === ch && at(i + 1, j + 1);
      memo.set(key, hit);
      return hit;
    };
    return at(0, 0);
  });
}

describe('globs against the rules spelt out', () => {
  const PIECES = ['a', 'b', '/', '*', '**', '**/', '?', '[ab]', '[!a]', '{a,b*}', '{,a/}', '-'];
  const CHARS = ['a', 'b', '/', '-'];

  it.each(Array.from({ length: 40 }, (_, i) => [i + 1]))('random patterns and paths, seed %i', (seed) => {
    const r = random(seed * 7907);
    for (let n = 0; n < 50; n++) {
      const pattern = Array.from({ length: 1 + Math.floor(r.next() * 7) }, () => r.pick(PIECES)).join('');
      for (let m = 0; m < 20; m++) {
        const path = Array.from({ length: Math.floor(r.next() * 12) }, () => r.pick(CHARS)).join('');
        const expected = pattern === path || referenceMatch(pattern, path);
        expect([pattern, path, pathMatches(pattern, path)]).toEqual([pattern, path, expected]);
      }
    }
  });
});
