import type { ChangedFiles, UnknownFilesReason } from '../webhook/push-event.js';
import { cleanPath } from './manifest-paths.js';

/**
 * A push's changed files, normalised once per push instead of once per app × file: every file cleaned,
 * and the set of every file and every directory above it (`''`, the root, included when any file is),
 * which is exactly what a path item can cover, as a set (literal items) and a tree (globs). Globs are
 * answered once per pattern per push.
 */
export type ChangedPaths = { readonly known: false; readonly reason: UnknownFilesReason } | KnownChangedPaths;

export interface KnownChangedPaths {
  readonly known: true;
  /** Files and their ancestors, cleaned. */
  readonly candidates: ReadonlySet<string>;
  /** Each candidate under its parent directory (`''` for top-level ones): the tree a glob walks. */
  readonly children: ReadonlyMap<string, readonly string[]>;
  /** Per-push answers of glob items, by pattern. */
  readonly globs: Map<string, boolean>;
}

// Only paths with `.`/`..` segments, doubled, leading or trailing slashes need `cleanPath` (and its garbage).
const NEEDS_CLEANING = /(?:^|\/)\.\.?(?:\/|$)|\/\/|^\/|\/$/;

export function normaliseChangedFiles(changed: ChangedFiles): ChangedPaths {
  if (!changed.known) return { known: false, reason: changed.reason };
  const candidates = new Set<string>();
  const children = new Map<string, string[]>();
  const add = (path: string, cut: number) => {
    candidates.add(path);
    const parent = cut < 0 ? '' : path.slice(0, cut);
    const siblings = children.get(parent);
    if (siblings) siblings.push(path);
    else children.set(parent, [path]);
  };
  for (const file of changed.files) {
    const clean = NEEDS_CLEANING.test(file) ? cleanPath(file) : file;
    if (clean === '' || candidates.has(clean)) continue;
    let cut = clean.lastIndexOf('/');
    add(clean, cut);
    // Stop at the first ancestor already present: its own ancestors were added with it.
    for (; cut > 0; ) {
      const dir = clean.slice(0, cut);
      if (candidates.has(dir)) break;
      cut = clean.lastIndexOf('/', cut - 1);
      add(dir, cut);
    }
  }
  if (candidates.size > 0) candidates.add('');
  return { known: true, candidates, children, globs: new Map() };
}

/**
 * Whether some non-root candidate starting with `prefix` passes `test`. Only the subtree under the
 * prefix's directory is walked, so a glob under `teams/a/` never looks at the rest of a 3,000-file push.
 */
export function someWithPrefix(
  changed: KnownChangedPaths,
  prefix: string,
  test: (candidate: string) => boolean,
): boolean {
  const slash = prefix.lastIndexOf('/');
  const stack = [...(changed.children.get(slash < 0 ? '' : prefix.slice(0, slash)) ?? [])];
  for (let candidate = stack.pop(); candidate !== undefined; candidate = stack.pop()) {
    const under = candidate.startsWith(prefix);
    if (under && test(candidate)) return true;
    if (under || prefix.startsWith(candidate)) stack.push(...(changed.children.get(candidate) ?? []));
  }
  return false;
}
