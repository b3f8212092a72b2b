import { type ParsedFile, parseManifestFile } from './manifest-parse.js';

/** Characters of file text a reader pool keeps with their parse (a few MB of manifests). */
export const PARSE_MEMO_CHARS = 8_000_000;

/** Parses a manifest file's text: `parseManifestFile`, or the same through a memo. */
export type ManifestParse = (text: string) => ParsedFile;

/**
 * `parseManifestFile` remembered by the file's text, for a warm container. A push's commit differs from the
 * one before in a few files, yet every refreshed app's manifests are read again at the new SHA (manifest sets
 * are kept per commit and path), and parsing the YAML is most of that read; overlays of one base read its
 * files once each too. Same text, same parse: the answer is the one parsed before, shared (its readers never
 * change it, as they never change a kept set). Bounded by the characters of the texts kept, least recently
 * used out first; a text above a sixteenth of the bound is parsed and not kept.
 */
export function createParseMemo(maxChars: number = PARSE_MEMO_CHARS): ManifestParse {
  const kept = new Map<string, ParsedFile>();
  const largest = Math.floor(maxChars / 16);
  let chars = 0;
  return (text) => {
    const known = kept.get(text);
    if (known !== undefined) {
      // Most recently used last: the Map's order is the eviction order.
      kept.delete(text);
      kept.set(text, known);
      return known;
    }
    const parsed = parseManifestFile(text);
    if (text.length > largest) return parsed;
    kept.set(text, parsed);
    chars += text.length;
    for (const oldest of kept.keys()) {
      if (chars <= maxChars) break;
      kept.delete(oldest);
      chars -= oldest.length;
    }
    return parsed;
  };
}
