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

/** Caller-supplied text echoed in an answer or a log line: bounded and free of control characters. */
export function quoted(text: string, max = 100): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return JSON.stringify(clean.length > max ? `${clean.slice(0, max)}…` : clean);
}
