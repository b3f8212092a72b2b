import { RE2JS } from 're2js';

/**
 * Path globs for manifest-generate-paths and ApplicationSet git generators: `*` and `?` stay within one
 * segment, `**` crosses segments (`a/**\/b` also matches `a/b`), `[a-z]`/`[!a]`/`[^a]` classes, `{x,y}`
 * alternatives, `\` escapes. Case-sensitive. Argo CD's `filepath.Match` treats `**` like `*`; we do not.
 *
 * Patterns come from Git, so evaluation is linear-time: a pattern a backtracking engine could take
 * superlinear time on (braces, or a star with another star after it that the first one's length can
 * trade characters with, e.g. `*a*a*b` or `**\/*.yaml`) runs on re2js. The rest keep a native RegExp
 * (~20x cheaper per test): with no braces and every star but the last one "atomic" (a single `*` right
 * before `/` or the end, which can only stop at the next `/`), backtracking is bounded by
 * path length × pattern length.
 */
export interface Glob {
  /** Whether the whole of `path` matches. */
  test(path: string): boolean;
}

const META = /[*?[{\\]/;
const REGEX_SPECIAL = /[.*+?^$()|[\]{}\\/-]/g;
const CACHE_LIMIT = 4096;
const cache = new Map<string, Glob | null>();

export function isGlob(pattern: string): boolean {
  return META.test(pattern);
}

interface Translation {
  /** The regular expression, with `ANY` standing for "any character, `/` included". */
  readonly source: string;
  /** Backtracking is bounded (see above): a native RegExp may run it. */
  readonly bounded: boolean;
}

const ANY = '\u0000ANY\u0000';

const literal = (ch: string) => ch.replace(REGEX_SPECIAL, '\\$&');

function classAt(pattern: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  const negate = pattern[i] === '!' || pattern[i] === '^';
  if (negate) i++;
  let body = '';
  for (; i < pattern.length && (pattern[i] !== ']' || body === ''); i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\') {
      i++;
      body += literal(pattern[i] ?? '');
    } else body += ch === '-' ? '-' : literal(ch);
  }
  if (i >= pattern.length || body === '') return undefined;
  return { source: negate ? `[^/${body}]` : `[${body}]`, end: i };
}

function translate(pattern: string): Translation | undefined {
  let out = '';
  let braces = 0;
  let bounded = true;
  let starBefore = false; // a star that is not atomic has been seen: one more star makes it unbounded
  const star = (atomic: boolean) => {
    if (starBefore) bounded = false;
    if (!atomic) starBefore = true;
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '*') {
      let end = i;
      while (pattern[end + 1] === '*') end++;
      const segmentStart = i === 0 || pattern[i - 1] === '/';
      if (end === i) {
        out += '[^/]*';
        star(end + 1 === pattern.length || pattern[end + 1] === '/');
      } else if (segmentStart && pattern[end + 1] === '/') {
        out += `(?:${ANY}*/)?`;
        end++;
        star(false);
      } else {
        out += `${ANY}*`;
        star(false);
      }
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
      out += literal(pattern[i] ?? '');
    } else if (ch === '{') {
      braces++;
      bounded = false;
      out += '(?:';
    } else if (ch === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (ch === ',' && braces > 0) out += '|';
    else out += literal(ch);
  }
  return braces === 0 ? { source: `^${out}$`, bounded } : undefined;
}

function compile({ source, bounded }: Translation): Glob {
  if (bounded) return new RegExp(source.replaceAll(ANY, '[^]'));
  const re = RE2JS.compile(source.replaceAll(ANY, '(?s:.)'));
  return { test: (path) => re.testExact(path) };
}

/** The compiled glob, or undefined for a pattern without glob syntax or a malformed one (never matches). */
export function compileGlob(pattern: string): Glob | undefined {
  let glob = cache.get(pattern);
  if (glob === undefined) {
    const translation = isGlob(pattern) ? translate(pattern) : undefined;
    try {
      glob = translation === undefined ? null : compile(translation);
    } catch {
      glob = null; // e.g. a reversed class range `[z-a]`
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, glob);
  }
  return glob ?? undefined;
}

/** `path` equals `pattern`, or matches it as a glob. */
export function pathMatches(pattern: string, path: string): boolean {
  return pattern === path || (compileGlob(pattern)?.test(path) ?? false);
}
