import type { RefPush } from './ports/ref-pushes.js';

/**
 * The later commit a push's ref has moved on to, from the pushes it received: a push that starts from
 * this commit (`before`) and does not come back from where this one started. A rollback (B→A after A→B)
 * starts where the later push ended, so it is the head; a late delivery of an older push (X→A after A→B)
 * is superseded by B. Undefined when nothing moved on from it.
 */
export function movedOnTo(
  push: Pick<RefPush, 'before' | 'after'>,
  pushes: readonly RefPush[],
): string | undefined {
  let at = push.after;
  const seen = new Set<string>([at]);
  for (;;) {
    const next = pushes
      .filter((p) => p.before === at && p.after !== push.before && !seen.has(p.after))
      .sort((a, b) => b.receivedAt.localeCompare(a.receivedAt))[0];
    if (next === undefined) return at === push.after ? undefined : at;
    at = next.after;
    seen.add(at);
  }
}
