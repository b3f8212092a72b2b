import { isRecord } from './raw-object.js';
import { canonicalRepoKey } from './repo-url.js';

const URL_FIELDS = new Set(['repoURL', 'url']);
const MAX_DEPTH = 8;
const MAX_NODES = 2000;

/**
 * The repositories a malformed object names anywhere under `spec` (`repoURL`, `url`), so that a push to
 * one of them can report the object as unreadable. Bounded, because the object is not trusted.
 */
export function attributeRepoKeys(raw: unknown): Set<string> {
  const keys = new Set<string>();
  if (!isRecord(raw)) return keys;
  const stack: { value: unknown; depth: number }[] = [{ value: raw.spec, depth: 0 }];
  for (let visited = 0; stack.length > 0 && visited < MAX_NODES; visited++) {
    const { value, depth } = stack.pop() ?? { value: undefined, depth: 0 };
    if (depth > MAX_DEPTH) continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 });
    } else if (isRecord(value)) {
      for (const [field, item] of Object.entries(value)) {
        const key = URL_FIELDS.has(field) && typeof item === 'string' ? canonicalRepoKey(item) : undefined;
        if (key !== undefined) keys.add(key);
        else stack.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return keys;
}
