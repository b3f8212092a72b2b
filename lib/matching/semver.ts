import { compareVersions, parseVersion, type SemVersion } from './semver-version.js';

/**
 * Semver constraints exactly as Masterminds/semver v3.4.0 (`NewConstraint` + `Check`) reads them, which is
 * what Argo CD's webhook and Flux use: `=`, `!=`, `>`, `<`, `>=`, `<=`, `~`, `~>`, `^`, `x`/`X`/`*`
 * wildcards, partial versions as wildcards, AND by space or comma, OR by `||`, `a - b` ranges; a prerelease
 * version only satisfies an AND group that names a prerelease. Go's regexps are linear; ours run token by
 * token so a crafted targetRevision cannot make them backtrack for long.
 */
const WS = '[\\t\\n\\f\\r ]';
const CV =
  'v?([0-9|xX*]+)(\\.[0-9|xX*]+)?(\\.[0-9|xX*]+)?(-([0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*))?(\\+([0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*))?';
const RANGE = new RegExp(`${WS}*(${CV})${WS}+-${WS}+(${CV})${WS}*`, 'g');
const CV_TOKEN = new RegExp(`${CV}(?=${WS}|,|$)`, 'y');
const WS_RUN = new RegExp(`${WS}*`, 'y');
const OP_RUN = /[=!<>~^]*/y;
const OPS = new Set(['', '=', '!=', '>', '<', '>=', '=>', '<=', '=<', '~', '~>', '^']);
/** Real targetRevisions are short; anything longer is not treated as a constraint. */
const MAX_CONSTRAINT_LENGTH = 256;

interface Constraint {
  readonly op: string;
  readonly con: SemVersion;
  readonly dirty: boolean;
  readonly minorDirty: boolean;
  readonly patchDirty: boolean;
}

const isX = (part: string | undefined): boolean => part === 'x' || part === 'X' || part === '*';

function toConstraint(op: string, m: RegExpExecArray): Constraint | undefined {
  const [whole, major = '', minor = '', patch = '', pre = ''] = m;
  let text = whole;
  let minorDirty = false;
  let patchDirty = false;
  let dirty = false;
  if (isX(major)) {
    text = `0.0.0${pre}`;
    dirty = true;
  } else if (isX(minor.slice(1)) || minor === '') {
    text = `${major}.0.0${pre}`;
    dirty = minorDirty = true;
  } else if (isX(patch.slice(1)) || patch === '') {
    text = `${major}${minor}.0${pre}`;
    dirty = patchDirty = true;
  }
  const con = parseVersion(text);
  return con && { op, con, dirty, minorDirty, patchDirty };
}

function read(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** One `||` alternative: `op cv` items separated by whitespace or a comma. */
function parseGroup(text: string): Constraint[] | undefined {
  const group: Constraint[] = [];
  let at = read(WS_RUN, text, 0)?.[0].length ?? 0;
  for (;;) {
    const op = read(OP_RUN, text, at)?.[0] ?? '';
    if (!OPS.has(op)) return undefined;
    at += op.length;
    at += read(WS_RUN, text, at)?.[0].length ?? 0;
    const cv = read(CV_TOKEN, text, at);
    if (!cv) return undefined;
    const item = toConstraint(op, cv);
    if (!item) return undefined;
    group.push(item);
    at += cv[0].length;
    const spaces = read(WS_RUN, text, at)?.[0].length ?? 0;
    at += spaces;
    if (at === text.length) return group;
    if (text[at] === ',') at += 1 + (read(WS_RUN, text, at + 1)?.[0].length ?? 0);
    else if (spaces === 0) return undefined;
  }
}

function rewriteRanges(text: string): string {
  let out = text;
  for (const m of text.matchAll(RANGE)) {
    out = out.replace(m[0], () => `>= ${m[1]}, <= ${m[11]} `);
  }
  return out;
}

export type Constraints = readonly (readonly Constraint[])[];

/** Undefined when the text is not a Masterminds constraint (then it can only match by exact name). */
export function parseConstraints(text: string): Constraints | undefined {
  if (text.length > MAX_CONSTRAINT_LENGTH) return undefined;
  const groups: Constraint[][] = [];
  for (const alternative of rewriteRanges(text).split('||')) {
    const group = parseGroup(alternative);
    if (!group) return undefined;
    groups.push(group);
  }
  return groups;
}

export function satisfies(constraints: Constraints, version: SemVersion): boolean {
  return constraints.some((group) => {
    const includePre = group.some((c) => c.con.pre !== '');
    return group.every((c) => check(c, version, includePre));
  });
}

/** Masterminds `NewConstraint(constraint).Check(NewVersion(version))`; false when either does not parse. */
export function constraintMatches(constraint: string, version: string): boolean {
  const constraints = parseConstraints(constraint);
  const parsed = constraints && parseVersion(version);
  return constraints !== undefined && parsed !== undefined && satisfies(constraints, parsed);
}

function check(c: Constraint, v: SemVersion, includePre: boolean): boolean {
  if (v.pre !== '' && !includePre) return false;
  const cmp = compareVersions(v, c.con);
  switch (c.op) {
    case '':
    case '=':
      return c.dirty ? tilde(c, v, cmp) : cmp === 0;
    case '!=':
      return notEqual(c, v, cmp);
    case '>':
      return greaterThan(c, v, cmp);
    case '<':
      return cmp < 0;
    case '>=':
    case '=>':
      return cmp >= 0;
    case '<=':
    case '=<':
      if (!c.dirty) return cmp <= 0;
      if (v.major > c.con.major) return false;
      return !(v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty);
    case '^':
      return caret(c, v, cmp);
    default:
      return tilde(c, v, cmp);
  }
}

function greaterThan(c: Constraint, v: SemVersion, cmp: number): boolean {
  if (!c.dirty) return cmp > 0;
  if (v.major !== c.con.major) return v.major > c.con.major;
  // `>1` needs 2.x and `>1.2` needs 1.3+: a wildcard part is compared as a whole.
  if (c.minorDirty) return false;
  return c.patchDirty ? v.minor > c.con.minor : cmp > 0;
}

function notEqual(c: Constraint, v: SemVersion, cmp: number): boolean {
  if (c.dirty) {
    if (c.con.major !== v.major) return true;
    if (c.con.minor !== v.minor && !c.minorDirty) return true;
    if (c.minorDirty) return false;
    if (c.con.patch !== v.patch && !c.patchDirty) return true;
    if (c.patchDirty) return (v.pre !== '' || c.con.pre !== '') && v.pre !== c.con.pre;
  }
  return cmp !== 0;
}

function tilde(c: Constraint, v: SemVersion, cmp: number): boolean {
  if (cmp < 0) return false;
  const zero = c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n;
  if (zero && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.con.major) return false;
  return v.minor === c.con.minor || c.minorDirty;
}

function caret(c: Constraint, v: SemVersion, cmp: number): boolean {
  if (cmp < 0) return false;
  if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major;
  if (v.major > 0n) return false;
  if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor;
  if (v.minor > 0n) return false;
  return v.patch === c.con.patch;
}
