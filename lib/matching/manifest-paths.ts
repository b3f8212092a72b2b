import type { ChangedFiles } from '../webhook/push-event.js';
import { pathMatches } from './glob.js';

/** The path decisions of `lib/rollouts/app-model.ts`, for one source or generator whose revision matched. */
export type PathsVerdict = 'refreshed' | 'refreshed-unknown-files' | 'paths-miss';

/** One path of an ApplicationSet git generator (`directories[]`, `files[]`). */
export interface PathRule {
  readonly path: string;
  readonly exclude?: boolean;
}

/**
 * A repo-root-relative path without `.`, `..`, empty segments or a leading `/`; `''` is the root.
 * `..` above the root stays at the root, as Argo CD's `EnforceToCurrentRoot` ends up doing.
 */
export function cleanPath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') out.pop();
    else if (segment !== '' && segment !== '.') out.push(segment);
  }
  return out.join('/');
}

/**
 * Argo CD's `GetSourceRefreshPaths`: split on `;`, trim, drop empty items; `/x` is from the repo root,
 * anything else from the source's `path`. Unlike Argo CD (#25366) absolute items are cleaned too, so
 * `/a/../b/file.yaml` names `b/file.yaml`. No items means no filter: refresh on every change.
 */
export function refreshPaths(annotationValue: string | undefined, sourcePath: string): string[] {
  if (annotationValue === undefined) return [];
  const paths: string[] = [];
  for (const raw of annotationValue.split(';')) {
    const item = raw.trim();
    if (item === '') continue;
    paths.push(cleanPath(item.startsWith('/') ? item : `${sourcePath}/${item}`));
  }
  return paths;
}

/** The file itself and every directory above it, up to the root (`''`). */
function selfAndAncestors(file: string): string[] {
  const out = [file];
  for (let cut = file.lastIndexOf('/'); cut >= 0; cut = file.lastIndexOf('/', cut - 1)) {
    out.push(file.slice(0, cut));
  }
  out.push('');
  return out;
}

/**
 * An item covers a changed file when it equals the file, is a directory above it (`apps/web` covers
 * `apps/web/x` but not `apps/webhooks/x`), or is a glob matching the file or a directory above it.
 */
export function pathCoversFile(item: string, file: string): boolean {
  return selfAndAncestors(cleanPath(file)).some((candidate) => matchesAt(item, candidate));
}

/** Only the root item itself names the root: `*` is not meant to match the empty path. */
function matchesAt(pattern: string, candidate: string): boolean {
  return candidate === '' ? pattern === '' : pathMatches(pattern, candidate);
}

/**
 * ApplicationSet generator paths: some directory holding the file (or the file) is included and that same
 * directory is not excluded, as the git generator's include/exclude filter treats directories.
 */
export function rulesCoverFile(rules: readonly PathRule[], file: string): boolean {
  const includes = rules.filter((r) => r.exclude !== true).map((r) => cleanPath(r.path));
  const excludes = rules.filter((r) => r.exclude === true).map((r) => cleanPath(r.path));
  return selfAndAncestors(cleanPath(file)).some(
    (candidate) =>
      includes.some((p) => matchesAt(p, candidate)) && !excludes.some((p) => matchesAt(p, candidate)),
  );
}

function verdict(filtered: boolean, changed: ChangedFiles, covers: (file: string) => boolean): PathsVerdict {
  // No filter means Argo CD refreshes on every push whatever changed, even an empty commit.
  if (!filtered) return 'refreshed';
  // Unknown is not empty: a truncated or missing list could hide a covered file, so fail open.
  if (!changed.known) return 'refreshed-unknown-files';
  const files = changed.files.filter((f) => cleanPath(f) !== '');
  return files.some(covers) ? 'refreshed' : 'paths-miss';
}

/** The decision for one Application source whose repository and revision matched. */
export function pathsCoverChanges(paths: readonly string[], changed: ChangedFiles): PathsVerdict {
  return verdict(paths.length > 0, changed, (file) => paths.some((item) => pathCoversFile(item, file)));
}

/** The decision for one ApplicationSet git generator whose repository and revision matched. */
export function rulesCoverChanges(rules: readonly PathRule[], changed: ChangedFiles): PathsVerdict {
  return verdict(rules.length > 0, changed, (file) => rulesCoverFile(rules, file));
}
