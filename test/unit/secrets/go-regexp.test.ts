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
    ['Unicode classes are unsupported', '\\p{Greek}', 'unsupported'],
    ['inline flags after the start are unsupported', 'a(?i)b', 'unsupported'],
    ['the ungreedy flag is unsupported', '(?U)a+', 'unsupported'],
  ])('%s', (_name, pattern, outcome) => {
    const compiled = compileGoRegexp(pattern);
    expect(compiled.ok).toBe(false);
    expect(compiled.ok ? undefined : compiled.outcome).toBe(outcome);
  });

  it('words a Go compile error as ESO does', () => {
    const compiled = compileGoRegexp('(a');
    expect(compiled.ok ? '' : compiled.message).toMatch(/^could not compile find\.name\.regexp \[\(a\]: /);
  });
});
