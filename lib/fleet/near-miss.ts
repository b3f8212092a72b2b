/** A near-miss of a known key (edit distance ≤ 2, or a shortened form), to say what was probably meant. */
export function closest(name: string, allowed: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const extended = allowed.find((key) => lower.length >= 3 && key.toLowerCase().startsWith(lower));
  if (extended !== undefined) return extended;
  let best: { key: string; distance: number } | undefined;
  for (const key of allowed) {
    const distance = editDistance(name.toLowerCase(), key.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
