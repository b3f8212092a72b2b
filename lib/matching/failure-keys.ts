import { isRecord } from './raw-object.js';
import { canonicalRepoKey } from './repo-url.js';

// `repoURL` (Argo CD sources and git generators), `url` (Flux), in any case or spelling a hand-written
// manifest may use (`repoUrl`, `repo_url`).
const URL_FIELD = /^(?:repo_?url|url)$/i;
// A URL-looking token inside a longer string (`"https://host/org/repo?ref=x "`, `"repo: git@host:o/r"`).
const URL_TOKEN = /(?:[a-z][a-z0-9+.-]*:\/\/|[\w.-]+@[\w.-]+:)[^\s"'<>?#]+/gi;
const MAX_DEPTH = 8;
const MAX_NODES = 2000;
// `status` can be large (`status.resources`); `metadata` names no repository.
const SKIPPED_TOP_LEVEL = new Set(['metadata', 'status', 'apiVersion', 'kind']);

/** The repository a string probably names, even if it is not a clean URL; undefined when nothing fits. */
export function lenientRepoKey(text: string): string | undefined {
  // A templated URL (`{{ .url }}`) names no repository until generation.
  if (text.includes('{{')) return undefined;
  const exact = canonicalRepoKey(text);
  if (exact !== undefined) return exact;
  for (const token of text.match(URL_TOKEN) ?? []) {
    const key = canonicalRepoKey(token);
    if (key !== undefined) return key;
  }
  return undefined;
}

/**
 * The repositories a malformed object might name (`repoURL`/`url` fields anywhere but in `metadata` and
 * `status`, also when `spec` itself is misplaced), so that a push to one of them can report the object as
 * unreadable. Bounded, because the object is not trusted.
 */
export function attributeRepoKeys(raw: unknown): Set<string> {
  const keys = new Set<string>();
  if (!isRecord(raw)) return keys;
  const roots = Object.entries(raw).filter(([field]) => !SKIPPED_TOP_LEVEL.has(field));
  const stack: { value: unknown; depth: number }[] = roots.map(([, value]) => ({ value, depth: 0 }));
  for (let visited = 0; stack.length > 0 && visited < MAX_NODES; visited++) {
    const { value, depth } = stack.pop() ?? { value: undefined, depth: 0 };
    if (depth > MAX_DEPTH) continue;
    // A `spec` that arrived as a string (double-encoded JSON, a YAML block) may still name its repository.
    if (depth === 0 && typeof value === 'string') {
      for (const token of value.match(URL_TOKEN) ?? []) {
        const key = canonicalRepoKey(token);
        if (key !== undefined) keys.add(key);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
    } else if (isRecord(value)) {
      for (const [field, item] of Object.entries(value)) {
        const key = URL_FIELD.test(field) && typeof item === 'string' ? lenientRepoKey(item) : undefined;
        if (key !== undefined) keys.add(key);
        else stack.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return keys;
}
