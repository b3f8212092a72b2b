import { RE2JS } from 're2js';

/**
 * The subset of tidwall/gjson path syntax ESO's `property` reaches, evaluated on parsed JSON the way
 * gjson walks raw text: `.`-separated keys (first match in document order, later matches tried when a
 * deeper step misses), `\` escapes, `*`/`?` wildcards in object keys, array indexes, `#` (length) and
 * `#.rest` (collect `rest` from every element). Queries `#(…)`, modifiers `@…`, static values `!…`,
 * pipes `|`, multipaths `[…]`/`{…}` and JSON lines `..` are reported `unsupported`, never guessed.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type PathResult =
  | { readonly kind: 'found'; readonly value: JsonValue }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unsupported'; readonly reason: string };

const MISSING: PathResult = { kind: 'missing' };
const unsupported = (reason: string): PathResult => ({ kind: 'unsupported', reason });

export function gjsonGet(root: JsonValue, path: string): PathResult {
  if (path.length > 1 && path[0] === '@') return unsupported('modifiers (@…)');
  if (path.length > 1 && path[0] === '!') return unsupported('static values (!…)');
  if (path.startsWith('[') || path.startsWith('{')) return unsupported('multipaths ([…] / {…})');
  if (path.startsWith('..')) return unsupported('JSON lines (..)');
  return step(root, path);
}

function step(value: JsonValue, path: string): PathResult {
  if (Array.isArray(value)) return arrayStep(value, path);
  if (value !== null && typeof value === 'object') return objectStep(value, path);
  return MISSING;
}

function descend(value: JsonValue, rest: string): PathResult {
  return value !== null && typeof value === 'object' ? step(value, rest) : MISSING;
}

interface Component {
  readonly part: string;
  readonly wild: boolean;
  /** The path after the separating `.`; undefined on the last component. */
  readonly rest?: string;
}

function splitObjectPath(path: string): Component | PathResult {
  let part = '';
  let wild = false;
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string;
    if (c === '|') return unsupported('pipes (|)');
    if (c === '\\') {
      i += 1;
      if (i < path.length) part += path[i];
      continue;
    }
    if (c === '.') {
      const rest = path.slice(i + 1);
      if (/^[@[{]/.test(rest)) return unsupported('modifiers or multipaths after a dot');
      return { part, wild, rest };
    }
    if (c === '*' || c === '?') wild = true;
    part += c;
  }
  return { part, wild };
}

function objectStep(object: { [key: string]: JsonValue }, path: string): PathResult {
  const component = splitObjectPath(path);
  if ('kind' in component) return component;
  const matches = component.wild ? wildcard(component.part) : undefined;
  for (const [key, value] of Object.entries(object)) {
    if (matches ? !matches.test(key) : key !== component.part) continue;
    if (component.rest === undefined) return { kind: 'found', value };
    const deeper = descend(value, component.rest);
    if (deeper.kind !== 'missing') return deeper;
  }
  return MISSING;
}

function arrayStep(array: JsonValue[], path: string): PathResult {
  // gjson's array paths take no escapes: a component is an index, `#`, or a miss.
  if (path.startsWith('#(') || path.startsWith('#[')) return unsupported('queries (#(…))');
  if (path.startsWith('#.')) {
    const collected: JsonValue[] = [];
    for (const element of array) {
      const result = gjsonGet(element, path.slice(2));
      if (result.kind === 'unsupported') return result;
      if (result.kind === 'found') collected.push(result.value);
    }
    return { kind: 'found', value: collected };
  }
  const dot = path.indexOf('.');
  const pipe = path.indexOf('|');
  if (pipe !== -1 && (dot === -1 || pipe < dot)) return unsupported('pipes (|)');
  const part = dot === -1 ? path : path.slice(0, dot);
  const rest = dot === -1 ? undefined : path.slice(dot + 1);
  if (rest !== undefined && /^[@[{]/.test(rest)) return unsupported('modifiers or multipaths after a dot');
  if (part === '#') return rest === undefined ? { kind: 'found', value: array.length } : MISSING;
  if (!/^\d+$/.test(part)) return MISSING;
  const element = array[Number(part)];
  if (element === undefined) return MISSING;
  return rest === undefined ? { kind: 'found', value: element } : descend(element, rest);
}

/** A key wildcard from Git, on RE2 (linear time: `*a*a*a…b` would backtrack polynomially in JS). */
function wildcard(pattern: string): RE2JS {
  const source = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : RE2JS.quote(c))).join('');
  return RE2JS.compile(`^${source}$`, RE2JS.DOTALL);
}

/** gjson `Result.String()`: strings unquoted, `null` empty, objects and arrays as JSON text. */
export function resultText(value: JsonValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
