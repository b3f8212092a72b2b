/**
 * Versions as Masterminds/semver v3.4.0 `NewVersion` reads them (its default coercing mode): a leading `v`,
 * missing minor/patch (`1`, `1.2`) and leading zeros are accepted; build metadata is kept but never compared.
 */
export interface SemVersion {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: string;
  readonly metadata: string;
}

const LOOSE_VERSION =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;
const UINT64_MAX = 18446744073709551615n;
const DIGITS = /^[0-9]+$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

/** Go's `strconv.ParseUint(s, 10, 64)`: undefined when not all digits or out of range. */
export function parseUint64(text: string): bigint | undefined {
  if (!DIGITS.test(text)) return undefined;
  const value = BigInt(text);
  return value > UINT64_MAX ? undefined : value;
}

function validPrerelease(pre: string): boolean {
  return pre.split('.').every((part) => {
    if (part === '') return false;
    if (DIGITS.test(part)) return part.length === 1 || !part.startsWith('0');
    return IDENTIFIER.test(part);
  });
}

export function parseVersion(text: string): SemVersion | undefined {
  const m = LOOSE_VERSION.exec(text);
  if (!m) return undefined;
  const major = parseUint64(m[1] ?? '');
  const minor = m[2] ? parseUint64(m[2].slice(1)) : 0n;
  const patch = m[3] ? parseUint64(m[3].slice(1)) : 0n;
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  const pre = m[5] ?? '';
  if (pre !== '' && !validPrerelease(pre)) return undefined;
  return { major, minor, patch, pre, metadata: m[8] ?? '' };
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const si = parseUint64(s);
  const oi = parseUint64(o);
  if (si === undefined && oi === undefined) return s > o ? 1 : -1;
  if (oi === undefined) return -1;
  if (si === undefined) return 1;
  return si > oi ? 1 : -1;
}

function comparePrerelease(a: string, b: string): number {
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const d = comparePrePart(as[i] ?? '', bs[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** -1, 0 or 1; a prerelease sorts before its release, metadata is ignored. */
export function compareVersions(a: SemVersion, b: SemVersion): number {
  const d = compareBig(a.major, b.major) || compareBig(a.minor, b.minor) || compareBig(a.patch, b.patch);
  if (d !== 0) return d;
  if (a.pre === '' && b.pre === '') return 0;
  if (a.pre === '') return 1;
  if (b.pre === '') return -1;
  return comparePrerelease(a.pre, b.pre);
}
