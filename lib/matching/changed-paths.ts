import type { ChangedFiles, UnknownFilesReason } from '../webhook/push-event.js';
import { cleanPath } from './manifest-paths.js';

/**
 * A push's changed files, normalised once per push instead of once per app × file: every file cleaned,
 * and the set of every file and every directory above it (`''`, the root, included when any file is),
 * which is exactly what a path item can cover. Globs are answered once per pattern per push.
 */
export type ChangedPaths = { readonly known: false; readonly reason: UnknownFilesReason } | KnownChangedPaths;

export interface KnownChangedPaths {
  readonly known: true;
  /** Files and their ancestors, cleaned. */
  readonly candidates: ReadonlySet<string>;
  /** The non-root candidates, sorted, so a glob only tests those starting with its literal prefix. */
  sorted(): readonly string[];
  /** Per-push answers of glob items, by pattern. */
  readonly globs: Map<string, boolean>;
}

export function normaliseChangedFiles(changed: ChangedFiles): ChangedPaths {
  if (!changed.known) return { known: false, reason: changed.reason };
  const candidates = new Set<string>();
  for (const file of changed.files) {
    const clean = cleanPath(file);
    if (clean === '' || candidates.has(clean)) continue;
    candidates.add(clean);
    // Stop at the first ancestor already present: its own ancestors were added with it.
    for (let cut = clean.lastIndexOf('/'); cut > 0; cut = clean.lastIndexOf('/', cut - 1)) {
      const dir = clean.slice(0, cut);
      if (candidates.has(dir)) break;
      candidates.add(dir);
    }
  }
  if (candidates.size > 0) candidates.add('');
  let sorted: string[] | undefined;
  return {
    known: true,
    candidates,
    sorted() {
      sorted ??= [...candidates].filter((c) => c !== '').sort();
      return sorted;
    },
    globs: new Map(),
  };
}

/** The first index of `sorted` whose entry is >= `prefix`. */
function lowerBound(sorted: readonly string[], prefix: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether some non-root candidate starting with `prefix` passes `test`. */
export function someWithPrefix(
  changed: KnownChangedPaths,
  prefix: string,
  test: (candidate: string) => boolean,
): boolean {
  const sorted = changed.sorted();
  for (let i = lowerBound(sorted, prefix); i < sorted.length; i++) {
    const candidate = sorted[i] as string;
    if (!candidate.startsWith(prefix)) return false;
    if (test(candidate)) return true;
  }
  return false;
}
