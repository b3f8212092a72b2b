/**
 * Go (RE2) regular expressions, as ESO compiles `find.name.regexp` and ClusterSecretStore
 * `namespaceRegexes`, translated to an equivalent JS RegExp for match-existence (unanchored, like
 * `MatchString`). Syntax Go rejects gives `error` (ESO fails too); Go syntax this translation does
 * not cover (`\p{…}`, `\C`, inline flags after the start, `(?U)`) gives `unsupported`.
 */
export type GoRegexp =
  | { readonly ok: true; readonly regexp: RegExp }
  | { readonly ok: false; readonly outcome: 'error' | 'unsupported'; readonly message: string };

class Rejected extends Error {
  constructor(
    readonly outcome: 'error' | 'unsupported',
    reason: string,
  ) {
    super(reason);
  }
}

const POSIX: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const GO_SPACE = '\\t\\n\\f\\r ';

export function compileGoRegexp(pattern: string): GoRegexp {
  try {
    const { source, flags } = translate(pattern);
    return { ok: true, regexp: new RegExp(source, flags) };
  } catch (error) {
    const outcome = error instanceof Rejected ? error.outcome : 'error';
    const reason = error instanceof Error ? error.message : String(error);
    const message =
      outcome === 'error'
        ? `could not compile find.name.regexp [${pattern}]: ${reason}`
        : `regexp [${pattern}] uses Go syntax the preflight does not translate: ${reason}`;
    return { ok: false, outcome, message };
  }
}

function translate(pattern: string): { source: string; flags: string } {
  let i = 0;
  let flags = '';
  const lead = /^\(\?([imsU]+)\)/.exec(pattern);
  if (lead?.[1]) {
    if (lead[1].includes('U')) throw new Rejected('unsupported', 'ungreedy flag (?U)');
    flags = [...new Set(lead[1])].join('');
    i = lead[0].length;
  }
  const dotAll = flags.includes('s');
  let out = '';
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === '\\') {
      const escaped = readEscape(pattern, i, false);
      out += escaped.text;
      i = escaped.next;
    } else if (c === '[') {
      const cls = readClass(pattern, i);
      out += cls.text;
      i = cls.next;
    } else if (c === '(' && pattern[i + 1] === '?') {
      const group = readGroupOpen(pattern, i);
      out += group.text;
      i = group.next;
    } else if (c === '{') {
      const repeat = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (repeat && (Number(repeat[1]) > 1000 || Number(repeat[3] || 0) > 1000)) {
        throw new Rejected('error', `invalid repeat count: ${repeat[0]}`);
      }
      out += repeat ? repeat[0] : '\\{';
      i += repeat ? repeat[0].length : 1;
    } else {
      // Go's `.` excludes only `\n`; JS's would also exclude `\r`, U+2028 and U+2029.
      out += c === '.' && !dotAll ? '[^\\n]' : c;
      i += 1;
    }
  }
  return { source: out, flags };
}

function readGroupOpen(pattern: string, i: number): { text: string; next: number } {
  const rest = pattern.slice(i);
  if (rest.startsWith('(?:')) return { text: '(?:', next: i + 3 };
  const named = /^\(\?P?<([A-Za-z0-9_]+)>/.exec(rest);
  if (named?.[1]) {
    if (/^\d/.test(named[1])) throw new Rejected('unsupported', `group name ${named[1]}`);
    return { text: `(?<${named[1]}>`, next: i + named[0].length };
  }
  if (/^\(\?[-imsU]+[:)]/.test(rest)) throw new Rejected('unsupported', 'inline flags after the start');
  throw new Rejected('error', `invalid or unsupported Perl syntax: \`${rest.slice(0, 3)}\``);
}

function readClass(pattern: string, start: number): { text: string; next: number } {
  let i = start + 1;
  let text = '[';
  if (pattern[i] === '^') {
    text += '^';
    i += 1;
  }
  // A `]` first in a Go class is a literal.
  if (pattern[i] === ']') {
    text += '\\]';
    i += 1;
  }
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === ']') return { text: `${text}]`, next: i + 1 };
    if (c === '[' && pattern[i + 1] === ':') {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(i));
      const range = posix?.[2] === undefined ? undefined : POSIX[posix[2]];
      if (!posix || range === undefined) throw new Rejected('error', 'invalid character class range');
      if (posix[1] === '^') throw new Rejected('unsupported', 'negated POSIX class inside brackets');
      text += range;
      i += posix[0].length;
    } else if (c === '\\') {
      const escaped = readEscape(pattern, i, true);
      text += escaped.text;
      i = escaped.next;
    } else {
      text += c === '[' ? '\\[' : c;
      i += 1;
    }
  }
  throw new Rejected('error', 'missing closing ]');
}

function readEscape(pattern: string, i: number, inClass: boolean): { text: string; next: number } {
  const c = pattern[i + 1];
  if (c === undefined) throw new Rejected('error', 'trailing backslash at end of expression');
  const next = i + 2;
  if (c >= '0' && c <= '7') {
    const digits = /^[0-7]{1,3}/.exec(pattern.slice(i + 1))?.[0] ?? c;
    // A lone non-zero digit would be a backreference, which RE2 does not have.
    if (c !== '0' && digits.length === 1) throw new Rejected('error', `invalid escape sequence: \\${c}`);
    return { text: codeUnit(Number.parseInt(digits, 8)), next: i + 1 + digits.length };
  }
  if (c === 'x') {
    const braced = /^\{([0-9A-Fa-f]{1,8})\}/.exec(pattern.slice(next));
    const two = /^[0-9A-Fa-f]{2}/.exec(pattern.slice(next));
    if (braced?.[1]) return { text: codeUnit(Number.parseInt(braced[1], 16)), next: next + braced[0].length };
    if (two) return { text: codeUnit(Number.parseInt(two[0], 16)), next: next + 2 };
    throw new Rejected('error', 'invalid escape sequence: \\x');
  }
  if (c === 'Q') {
    const end = pattern.indexOf('\\E', next);
    const literal = end === -1 ? pattern.slice(next) : pattern.slice(next, end);
    return {
      text: literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'),
      next: end === -1 ? pattern.length : end + 2,
    };
  }
  if (c === 's') return { text: inClass ? GO_SPACE : `[${GO_SPACE}]`, next };
  if (c === 'S') {
    if (inClass) throw new Rejected('unsupported', '\\S inside brackets');
    return { text: `[^${GO_SPACE}]`, next };
  }
  if (c === 'A' || c === 'z') {
    if (inClass) throw new Rejected('error', `invalid escape sequence: \\${c}`);
    return { text: c === 'A' ? '(?<![\\s\\S])' : '(?![\\s\\S])', next };
  }
  if (c === 'a') return { text: '\\x07', next };
  if ('dDwWtnfrv'.includes(c)) return { text: `\\${c}`, next };
  if (c === 'b' || c === 'B') {
    if (inClass) throw new Rejected('error', `invalid escape sequence: \\${c}`);
    return { text: `\\${c}`, next };
  }
  if (c === 'p' || c === 'P' || c === 'C') throw new Rejected('unsupported', `\\${c} escapes`);
  if (/[A-Za-z0-9_]/.test(c) || c.charCodeAt(0) > 0x7f) {
    throw new Rejected('error', `invalid escape sequence: \\${c}`);
  }
  return { text: `\\${c}`, next };
}

function codeUnit(code: number): string {
  if (code > 0xffff) throw new Rejected('unsupported', 'code points above U+FFFF');
  return `\\u${code.toString(16).padStart(4, '0')}`;
}
