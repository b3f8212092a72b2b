/**
 * A cluster name against a name or glob (`*`: any run of characters, `?`: one), case-sensitive. Iterative,
 * remembering only the last `*`: no backtracking blow-up, at most pattern × name steps, whatever the
 * pattern (freezes and waves come from operators and Git).
 */
export function clusterGlobMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const c = pattern[p];
    if (c === '?' || (c !== undefined && c !== '*' && c === name[n])) {
      p += 1;
      n += 1;
    } else if (c === '*') {
      star = p;
      resume = n;
      p += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      n = resume;
    } else return false;
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** A cluster name or glob of fleet-name characters (letters, digits, `-`, `.`, `_`) and `*`, `?`. */
export const CLUSTER_PATTERN = /^[A-Za-z0-9*?][-A-Za-z0-9._*?]{0,252}$/;
