import { MatcherInput } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileGoRegexp } from '../../../lib/secrets/go-regexp.js';

function matches(pattern: string, name: string): boolean {
  const compiled = compileGoRegexp(pattern);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.regexp.test(name);
}

describe('compileGoRegexp matches as Go MatchString does', () => {
  it.each([
    ['an unanchored pattern matches inside a name', 'db', 'prod/db/main', true],
    ['^ anchors at the start', '^db', 'prod/db', false],
    ['a class and repetition work', '^prod/[a-z]+-\\d{2}$', 'prod/web-01', true],
    ['a named group (?P<n>) is accepted', '^(?P<env>prod|dev)/', 'dev/x', true],
    ['(?i) at the start makes it case-insensitive', '(?i)^PROD/', 'prod/x', true],
    ['. does not match a newline but matches a carriage return', 'a.b', 'a\rb', true],
    ['. does not cross a newline', '^a.b$', 'a\nb', false],
    ["\\s is Go's ASCII space set, without vertical tab", '^a\\sb$', 'a\vb', false],
    ['a POSIX class inside brackets works', '^[[:alpha:]]+$', 'abc', true],
    ['] first in a class is a literal', '^[]a]+$', ']a]', true],
    ['\\Q…\\E quotes metacharacters', '^\\Qa.b*\\E$', 'a.b*', true],
    ['\\A and \\z anchor the whole text', '\\Aab\\z', 'ab', true],
    ['an octal escape is a character', '^\\101$', 'A', true],
    ['\\x{41} is a character', '^\\x{41}$', 'A', true],
    ['a Unicode class works, as in Go', '^\\p{Greek}+$', 'αβγ', true],
    ['inline flags after the start work, as in Go', 'a(?i)b', 'aB', true],
    ['the ungreedy flag is accepted, as in Go', '(?U)^a+$', 'aaa', true],
    ['$ without (?m) is the end of the text only', '^a$', 'a\n', false],
    ['. matches one code point, not one UTF-16 unit', '^.$', '😀', true],
  ])('%s', (_name, pattern, name, expected) => {
    expect(matches(pattern, name)).toBe(expected);
  });
});

describe('compileGoRegexp rejects what Go rejects and what it cannot translate', () => {
  it.each([
    ['a lookahead is an error, as in Go', '^(?=a)', 'error'],
    ['a backreference is an error, as in Go', '(a)\\1', 'error'],
    ['an unknown escape is an error', '\\y', 'error'],
    ['an unbalanced group is an error', '(a', 'error'],
    ['a repeat count over 1000 is an error', 'a{1001}', 'error'],
    ['\\C is an error, as in Go', '\\C', 'error'],
    ['a nested repetition is an error, as in Go', 'x**', 'error'],
    ['an over-long pattern is refused before compiling', 'a'.repeat(5000), 'unsupported'],
  ])('%s', (_name, pattern, outcome) => {
    const compiled = compileGoRegexp(pattern);
    expect(compiled.ok).toBe(false);
    expect(compiled.ok ? undefined : compiled.outcome).toBe(outcome);
  });

  it("words a Go compile error as ESO does, with Go's own reason", () => {
    const compiled = compileGoRegexp('(a');
    expect(compiled.ok ? '' : compiled.message).toBe(
      'could not compile find.name.regexp [(a]: error parsing regexp: missing closing ): `(a`',
    );
  });
});

/** The name as UTF-8 bytes behind a proxy that counts every read of an input position. */
function countingInput(name: string): { input: number[]; reads: () => number } {
  let reads = 0;
  const bytes = [...Buffer.from(name, 'utf8')];
  const input = new Proxy(bytes, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { input, reads: () => reads };
}

describe('compileGoRegexp matches in linear time (patterns come from Git)', () => {
  const pattern = '^([a-z0-9-]+/?)+$';

  it('answers the nested-quantifier pattern correctly for a 31-character name', () => {
    const compiled = compileGoRegexp(pattern);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.regexp.test(`${'a'.repeat(30)}!`)).toBe(false);
    expect(compiled.regexp.test(`${'a'.repeat(15)}/${'b'.repeat(15)}`)).toBe(true);
  });

  it('reads each input position a bounded number of times, whatever the length', () => {
    const compiled = compileGoRegexp(pattern);
    if (!compiled.ok) throw new Error(compiled.message);
    const perPosition = [31, 62, 248].map((length) => {
      const { input, reads } = countingInput(`${'a'.repeat(length - 1)}!`);
      expect(compiled.regexp.matcher(MatcherInput.utf8(input)).find()).toBe(false);
      return reads() / length;
    });
    // A backtracking engine reads ~2^n positions here; RE2 reads each one a few times.
    for (const ratio of perPosition) expect(ratio).toBeLessThan(compiled.regexp.programSize());
    expect(Math.max(...perPosition) / Math.min(...perPosition)).toBeLessThan(1.5);
  });
});
