import type { RefType } from './push-event.js';

export interface ParsedRef {
  readonly refType: RefType;
  readonly refName: string;
}

const PREFIXES = [
  ['refs/heads/', 'branch'],
  ['refs/tags/', 'tag'],
] as const;

/** `refs/heads/x` → branch `x`, `refs/tags/x` → tag `x`; anything else (notes, pull refs) is neither. */
export function parseRef(ref: string): ParsedRef | undefined {
  for (const [prefix, refType] of PREFIXES) {
    if (ref.startsWith(prefix) && ref.length > prefix.length) {
      return { refType, refName: ref.slice(prefix.length) };
    }
  }
  return undefined;
}
