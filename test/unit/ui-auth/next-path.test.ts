import { describe, expect, it } from 'vitest';
import { DEFAULT_NEXT, safeNextPath } from '../../../lib/ui-auth/next-path.js';

describe('the page a login returns to (`next`)', () => {
  it.each([
    ['a page with its query', '/ui/rollouts/abc1234?view=all', '/ui/rollouts/abc1234?view=all'],
    ['the list', '/ui/', '/ui/'],
    ['the list without its slash', '/ui', '/ui'],
    ['a path with dot segments, resolved', '/ui/rollouts/../', '/ui/'],
  ])('keeps %s', (_name, raw, expected) => {
    expect(safeNextPath(raw)).toBe(expected);
  });

  it.each([
    ['nothing', undefined],
    ['an empty value', ''],
    ['a protocol-relative URL', '//evil.example/ui/'],
    ['an absolute URL', 'https://evil.example/ui/'],
    ['a backslash a browser reads as a slash', '/\\evil.example'],
    ['a backslash later on', '/ui/\\\\evil.example'],
    ['a scheme without slashes', 'javascript:alert(1)'],
    ['a tab a browser strips', '/\t/evil.example'],
    ['a newline (header splitting)', '/ui/\r\nset-cookie: x=1'],
    ['dot segments climbing to another origin-looking path', '/ui/../..//evil.example'],
    ['encoded dot segments', '/ui/%2e%2e//evil.example'],
    ['a path outside the pages', '/rollouts/abc'],
    ['a path that only starts like the pages', '/uix/'],
    ['the login itself (a loop)', '/ui/login?next=/ui/'],
    ['the callback', '/ui/callback'],
    ['the logout', '/ui/logout/'],
    ['a relative path', 'ui/'],
    ['an overlong value', `/ui/${'a'.repeat(3000)}`],
  ])('replaces %s with the list', (_name, raw) => {
    expect(safeNextPath(raw)).toBe(DEFAULT_NEXT);
  });
});
