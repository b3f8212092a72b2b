import { describe, expect, it } from 'vitest';
import { canonicalRepoUrl } from '../../lib/git/repo-url.js';
import { canonicalRepoKey } from '../../lib/matching/repo-url.js';
import { memoizeString } from '../../lib/string-memo.js';

describe('a remembered function of a short string', () => {
  const counted = () => {
    const calls: string[] = [];
    const fn = (input: string) => {
      calls.push(input);
      return input === 'none' ? undefined : input.toUpperCase();
    };
    return { calls, fn };
  };

  it('computes each input once, undefined answers too', () => {
    const { calls, fn } = counted();
    const memo = memoizeString(fn);
    expect([memo('a'), memo('a'), memo('none'), memo('none'), memo('b')]).toEqual([
      'A',
      'A',
      undefined,
      undefined,
      'B',
    ]);
    expect(calls).toEqual(['a', 'none', 'b']);
  });

  it('keeps at most `max` answers, and never an input longer than `maxLength`', () => {
    const { calls, fn } = counted();
    const memo = memoizeString(fn, { max: 2, maxLength: 4 });
    memo('a');
    memo('b');
    memo('c'); // full: the kept answers are dropped, then c is kept
    memo('c');
    memo('a');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
    memo('long input');
    memo('long input');
    expect(calls.slice(4)).toEqual(['long input', 'long input']);
  });

  it('leaves the repository keys as they were', () => {
    for (let i = 0; i < 3; i++) {
      expect(canonicalRepoKey('https://user:token@GitHub.com/org/gitops.git/')).toBe('github.com/org/gitops');
      expect(canonicalRepoKey('oci://registry/chart')).toBeUndefined();
      expect(canonicalRepoUrl('https://user:token@GitHub.com/org/gitops.git')).toBe(
        'https://github.com/org/gitops',
      );
    }
  });
});
