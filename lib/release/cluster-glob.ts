/**
 * A cluster-name glob (`*` any run of characters, `?` one character, everything else literal), matched in
 * at most O(pattern × name) steps: the classic wildcard walk that remembers only the last `*`, so no
 * pattern backtracks exponentially.
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

export const isClusterGlob = (pattern: string): boolean => /[*?]/.test(pattern);
