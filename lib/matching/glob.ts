/**
 * Path globs for manifest-generate-paths and ApplicationSet git generators: `*` and `?` stay within one
 * segment, `**` crosses segments (`a/**\/b` also matches `a/b`), `[a-z]`/`[!a]`/`[^a]` classes, `{x,y}`
 * alternatives, `\` escapes. Case-sensitive. Argo CD's `filepath.Match` treats `**` like `*`; we do not.
 */
const META = /[*?[{\\]/;
const REGEX_SPECIAL = /[.*+?^$()|[\]{}\\/-]/g;
const ANY = '[^]';
const CACHE_LIMIT = 4096;
const cache = new Map<string, RegExp | null>();

export function isGlob(pattern: string): boolean {
  return META.test(pattern);
}

function classAt(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  const negate = pattern[i] === '!' || pattern[i] === '^';
  if (negate) i++;
  let body = '';
  for (; i < pattern.length && (pattern[i] !== ']' || body === ''); i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\') {
      i++;
      body += `\\${pattern[i] ?? ''}`;
    } else body += ch === '-' ? '-' : ch.replace(REGEX_SPECIAL, '\\$&');
  }
  if (i >= pattern.length || body === '') return undefined;
  return { source: negate ? `[^/${body}]` : `[${body}]`, end: i };
}

function translate(pattern: string): string | undefined {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '*') {
      let end = i;
      while (pattern[end + 1] === '*') end++;
      const segmentStart = i === 0 || pattern[i - 1] === '/';
      if (end === i) out += '[^/]*';
      else if (segmentStart && pattern[end + 1] === '/') {
        out += `(?:${ANY}*/)?`;
        end++;
      } else out += `${ANY}*`;
      i = end;
    } else if (ch === '?') out += '[^/]';
    else if (ch === '[') {
      const cls = classAt(pattern, i);
      if (!cls) return undefined;
      out += cls.source;
      i = cls.end;
    } else if (ch === '\\') {
      i++;
      if (i >= pattern.length) return undefined;
      out += (pattern[i] ?? '').replace(REGEX_SPECIAL, '\\$&');
    } else if (ch === '{') {
      braces++;
      out += '(?:';
    } else if (ch === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (ch === ',' && braces > 0) out += '|';
    else out += ch.replace(REGEX_SPECIAL, '\\$&');
  }
  return braces === 0 ? `^${out}$` : undefined;
}

/** The compiled glob, or undefined for a pattern without glob syntax or a malformed one (never matches). */
export function globRegExp(pattern: string): RegExp | undefined {
  let re = cache.get(pattern);
  if (re === undefined) {
    const source = isGlob(pattern) ? translate(pattern) : undefined;
    try {
      re = source === undefined ? null : new RegExp(source);
    } catch {
      re = null; // e.g. a reversed class range `[z-a]`
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, re);
  }
  return re ?? undefined;
}

/** `path` equals `pattern`, or matches it as a glob. */
export function pathMatches(pattern: string, path: string): boolean {
  return pattern === path || (globRegExp(pattern)?.test(path) ?? false);
}
