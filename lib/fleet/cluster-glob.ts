/**
 * Cluster-name globs of wave `clusters:` (`staging-*`, `prod-??`): `*` any run of characters, `?` one
 * character, everything else literal. Matched by one left-to-right scan that remembers only the last `*`
 * (no RegExp), so a match costs at most name length × pattern length steps, both DNS-label sized.
 */
export function isClusterGlob(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

export function matchesClusterGlob(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const ch = pattern[p];
    if (ch === '*') {
      star = p++;
      resume = n;
    } else if (ch !== undefined && (ch === '?' || ch === name[n])) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
